import {
  ChannelMessageSender,
  describeUnusable,
  isUnusable,
} from '../channels/channel-message-sender';
import { WHATSAPP_LIMITS } from '../channels/whatsapp/whatsapp.transport';
import { normalizePhoneNumbers } from '../scheduler/phone-numbers';
import { requiredString } from '../tools/execution/required-input';
import { ToolExecutionError, ToolExecutor } from '../tools/execution/tool-executor';

/**
 * Agentline.SendWhatsappMessage: `{channel_id, to, text}` sends one text now through a WhatsApp
 * channel of the tool's own agent (in its organization), by the same rules as a follow-up's
 * channel; a token Meta rejects deactivates the channel, as in a delivery.
 */
export function sendWhatsappMessage(channels: ChannelMessageSender): ToolExecutor {
  const textLimit = WHATSAPP_LIMITS.textLength;
  return {
    async execute(input, context) {
      const text = requiredString(input, 'text');
      if (text.trim() === '') throw new ToolExecutionError('text must not be empty.');
      if (text.length > textLimit) {
        throw new ToolExecutionError(`text must be at most ${textLimit} characters.`);
      }
      const phone = normalizePhoneNumbers([requiredString(input, 'to')], 'to');
      if (phone.errors.length > 0) throw new ToolExecutionError(`to: ${phone.errors[0].message}`);
      const to = phone.numbers[0];

      const channelId = requiredString(input, 'channel_id');
      const channel = await channels.open(
        { organizationId: context.organizationId, channelId },
        { kind: 'whatsapp', agentId: context.agentId },
      );
      if (isUnusable(channel)) {
        throw new ToolExecutionError(
          describeUnusable(channel, {
            channelId,
            agentId: context.agentId,
            wrongKind: 'only WhatsApp channels can send here.',
          }),
        );
      }
      const outcome = await channel.send(to, { type: 'text', body: text });
      if (outcome.kind !== 'sent') {
        throw new ToolExecutionError(
          `WhatsApp did not send the message (${outcome.code}): ${outcome.message}`,
        );
      }
      return { message_id: outcome.messageId, channel_id: channel.id, to };
    },
  };
}
