import { channelResponseFields } from '../../channel.mappers';
import { parseMessangerNotification } from './messanger-notification.parser';
import type { ChannelKindDescriptor, StoredChannel } from '../channel-kind';
import { MessangerChannelDto } from './messanger-channel.dto';
import { MessangerChannelEntity } from './messanger-channel.entity';
import { MessangerTransport } from './messanger.transport';

/**
 * The spec's Messanger channel has no status field: an inactive one says so only through
 * `status_reason` (null while active), which the contract asks every channel to show.
 */
export function toMessangerChannelResponse(
  channel: StoredChannel,
  webhookUrl: string,
): MessangerChannelDto {
  return {
    ...channelResponseFields(channel, webhookUrl),
    user_id: channel.senderId,
    type: 'Messanger',
  };
}

/**
 * Facebook Messenger pages ("Messanger", the spec's spelling): page-scoped recipient ids, and no
 * templates: outside the 24-hour window a send is refused before it is queued.
 */
export const MESSANGER_KIND: ChannelKindDescriptor = {
  kind: 'messanger',
  label: 'Messanger',
  type: 'Messanger',
  table: 'messanger_channels',
  entity: MessangerChannelEntity,
  senderIdColumn: 'user_id',
  senderIdUniqueIndex: 'messanger_channels_user_key',
  recipients: 'scoped_id',
  outsideWindow: {
    refusal: (recipient) =>
      `${recipient} has not written to this page in the last 24 hours; Messenger only accepts replies (messaging_type RESPONSE) within that window.`,
  },
  downloadsMedia: false,
  webhookAccountName: 'page',
  parseNotification: parseMessangerNotification,
  createTransport: ({ graph }) => new MessangerTransport(graph),
  toResponse: toMessangerChannelResponse,
};
