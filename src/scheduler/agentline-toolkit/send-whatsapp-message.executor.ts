import { ChannelsService } from '../../channels/channels.service';
import { GraphApiClient } from '../../channels/graph-api/graph-api.client';
import { WhatsappChannelEntity } from '../../channels/whatsapp/whatsapp-channel.entity';
import {
  ToolExecutionContext,
  ToolExecutionError,
  ToolExecutor,
} from '../../tools/execution/tool-executor';
import { WHATSAPP_TEXT_LIMIT } from '../delivery/message-composer';
import { normalizePhoneNumbers } from '../phone-numbers';

const field = (input: Parameters<ToolExecutor['execute']>[0], name: string): string => {
  const value = input[name];
  if (typeof value !== 'string') throw new ToolExecutionError(`${name} must be a string.`);
  return value;
};

/**
 * Agentline.SendWhatsappMessage: `{channel_id, to, text}` sends one text now through a WhatsApp
 * channel of the tool's own agent (in its organization), as the delivery worker would.
 */
export function sendWhatsappMessage(
  channels: ChannelsService,
  graph: GraphApiClient,
): ToolExecutor {
  return {
    async execute(input, context) {
      const text = field(input, 'text');
      if (text.trim() === '') throw new ToolExecutionError('text must not be empty.');
      if (text.length > WHATSAPP_TEXT_LIMIT) {
        throw new ToolExecutionError(`text must be at most ${WHATSAPP_TEXT_LIMIT} characters.`);
      }
      const phone = normalizePhoneNumbers([field(input, 'to')], 'to');
      if (phone.errors.length > 0) throw new ToolExecutionError(`to: ${phone.errors[0].message}`);
      const to = phone.numbers[0];

      const channel = await usableChannel(channels, field(input, 'channel_id'), context);
      const credentials = (await channels.whatsappCredentials([channel.id])).get(channel.id);
      if (!credentials) throw new ToolExecutionError(`Channel ${channel.id} no longer exists.`);
      if (credentials.accessToken === undefined) {
        throw new ToolExecutionError(
          `The access token of channel ${channel.id} cannot be decrypted; update its access_token.`,
        );
      }
      const outcome = await graph.sendText({
        numberId: credentials.numberId,
        accessToken: credentials.accessToken,
        to,
        body: text,
      });
      if (outcome.kind !== 'sent') {
        throw new ToolExecutionError(
          `WhatsApp did not send the message (${outcome.code}): ${outcome.message}`,
        );
      }
      return { message_id: outcome.messageId, channel_id: channel.id, to };
    },
  };
}

/** The same rules as a follow-up's channel: this organization, WhatsApp, this agent, active. */
async function usableChannel(
  channels: ChannelsService,
  channelId: string,
  context: ToolExecutionContext,
): Promise<WhatsappChannelEntity> {
  const channel = await channels.findWhatsappChannel(context.organizationId, channelId);
  if (!channel) {
    const messanger = await channels.findMessangerChannel(context.organizationId, channelId);
    throw new ToolExecutionError(
      messanger
        ? `Channel ${channelId} is a Messanger channel; only WhatsApp channels can send here.`
        : `No WhatsApp channel ${channelId} exists in this organization.`,
    );
  }
  if (channel.agentId !== context.agentId) {
    throw new ToolExecutionError(
      `Channel ${channelId} belongs to another agent, not ${context.agentId}.`,
    );
  }
  if (channel.status !== 'active') {
    throw new ToolExecutionError(
      `Channel ${channelId} is inactive; update its access_token to reactivate it.`,
    );
  }
  return channel;
}
