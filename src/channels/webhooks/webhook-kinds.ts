import type { ChannelKind } from '../channel-transport';
import {
  parseMessangerNotification,
  parseWhatsappNotification,
  ParsedNotification,
} from './meta-notification.parser';

/*
 * What the webhooks know of each kind, in one place: its table and the column of its Meta
 * account, what Meta calls that account, and how its notifications are read.
 */

export const CHANNEL_COLUMNS: Record<ChannelKind, string> = {
  whatsapp: `SELECT id, organization_id, agent_id, number_id AS meta_id, verification_token,
                    app_secret_encrypted
               FROM whatsapp_channels`,
  messanger: `SELECT id, organization_id, agent_id, user_id AS meta_id, verification_token,
                     app_secret_encrypted
                FROM messanger_channels`,
};
export const META_ID_COLUMN: Record<ChannelKind, string> = {
  whatsapp: 'number_id',
  messanger: 'user_id',
};
export const ACCOUNT_NAME: Record<ChannelKind, string> = {
  whatsapp: 'phone_number_id',
  messanger: 'page',
};

export const PARSERS: Record<ChannelKind, (body: unknown) => ParsedNotification> = {
  whatsapp: parseWhatsappNotification,
  messanger: parseMessangerNotification,
};
