import { channelResponseFields } from '../../channel.mappers';
import { parseWhatsappNotification } from './whatsapp-notification.parser';
import type { ChannelKindDescriptor, StoredChannel } from '../channel-kind';
import { WhatsappChannelDto } from './whatsapp-channel.dto';
import { WhatsappChannelEntity } from './whatsapp-channel.entity';
import { WhatsappTransport } from './whatsapp.transport';
import { otherNumberForms } from './whatsapp-number-forms';

/** Response types have no secret fields, so a secret cannot leak through them. */
export function toWhatsappChannelResponse(
  channel: StoredChannel,
  webhookUrl: string,
): WhatsappChannelDto {
  return {
    ...channelResponseFields(channel, webhookUrl),
    number_id: channel.senderId,
    status: channel.status,
    type: 'Whatsapp',
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
  recipients: 'phone',
  samePerson: otherNumberForms,
  outsideWindow: 'template',
  downloadsMedia: true,
  webhookAccountName: 'phone_number_id',
  parseNotification: parseWhatsappNotification,
  createTransport: ({ graph }) => new WhatsappTransport(graph),
  toResponse: toWhatsappChannelResponse,
};
