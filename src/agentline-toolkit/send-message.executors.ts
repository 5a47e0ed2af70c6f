import {
  ChannelMessagesService,
  SendMessangerMessageDto,
  SendWhatsappMessageDto,
} from '../channels';
import { asToolError, ToolExecutionContext, ToolExecutor, validDto } from '../tools';
import { messangerToolBody, whatsappToolBody } from './rich-message.tool-input';

/** In the name of whoever attached the tool, on a channel of the tool's own agent only. */
const sender = (context: ToolExecutionContext) => ({
  principal: { organizationId: context.organizationId, subject: context.toolCreatedBy },
  options: { agentId: context.agentId },
});

/**
 * Agentline.SendWhatsappMessage and Agentline.SendMessangerMessage: `{channel_id, to, text, …}` is
 * POST /v1/channels/{kind}/{id}/messages (the flat rich parameters become its body first, see
 * rich-message.tool-input.ts). The message is queued in the outbox (rate limit,
 * retries, statuses, opt-outs) and the tool returns its delivery, `pending` (or `skipped`).
 */
export function sendMessageExecutors(
  messages: ChannelMessagesService,
): Record<string, ToolExecutor> {
  return {
    'Agentline.SendWhatsappMessage': {
      async execute(input, context) {
        const { channel_id: channelId, ...body } = input;
        const dto = await validDto(SendWhatsappMessageDto, whatsappToolBody(body));
        const { principal, options } = sender(context);
        return asToolError(() => messages.sendWhatsapp(principal, String(channelId), dto, options));
      },
    },
    'Agentline.SendMessangerMessage': {
      async execute(input, context) {
        const { channel_id: channelId, ...body } = input;
        const dto = await validDto(SendMessangerMessageDto, messangerToolBody(body));
        const { principal, options } = sender(context);
        return asToolError(() =>
          messages.sendMessanger(principal, String(channelId), dto, options),
        );
      },
    },
  };
}
