import { channelResponseFields } from '../../channel.mappers';
import { parseWhatsappNotification } from './whatsapp-notification.parser';
import type { ChannelKindDescriptor, StoredChannel } from '../channel-kind';
import { WhatsappChannelDto } from './whatsapp-channel.dto';
import { WhatsappChannelEntity } from './whatsapp-channel.entity';
import { WhatsappTransport } from './whatsapp.transport';
import { otherNumberForms } from './whatsapp-number-forms';

/** WhatsApp's own columns: the business account and its template catalog's state. */
const WHATSAPP_OWN_COLUMNS = [
  'business_account_id',
  'templates_synced_at',
  'templates_sync_error',
  'templates_sync_failed_at',
  'templates_sync_requested_at',
] as const;

const millisOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : new Date(value as string | Date).getTime();
const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Response types have no secret fields, so a secret cannot leak through them. */
export function toWhatsappChannelResponse(
  channel: StoredChannel,
  webhookUrl: string,
): WhatsappChannelDto {
  const { own } = channel;
  return {
    ...channelResponseFields(channel, webhookUrl),
    number_id: channel.senderId,
    status: channel.status,
    type: 'Whatsapp',
    business_account_id: textOrNull(own.business_account_id),
    templates: {
      synced_at: millisOrNull(own.templates_synced_at),
      sync_error:
        typeof own.templates_sync_error === 'string'
          ? {
              message: own.templates_sync_error,
              failed_at: millisOrNull(own.templates_sync_failed_at) ?? 0,
            }
          : null,
    },
  };
}

/** WhatsApp Cloud API numbers: phone-number recipients, templates outside the 24-hour window. */
export const WHATSAPP_KIND: ChannelKindDescriptor = {
  kind: 'whatsapp',
  label: 'WhatsApp',
  type: 'Whatsapp',
  table: 'whatsapp_channels',
  entity: WhatsappChannelEntity,
  senderIdColumn: 'number_id',
  senderIdUniqueIndex: 'whatsapp_channels_number_key',
  ownColumns: WHATSAPP_OWN_COLUMNS,
  recipients: 'phone',
  samePerson: otherNumberForms,
  outsideWindow: 'template',
  downloadsMedia: true,
  webhookAccountName: 'phone_number_id',
  parseNotification: parseWhatsappNotification,
  createTransport: ({ graph }) => new WhatsappTransport(graph),
  toResponse: toWhatsappChannelResponse,
};
