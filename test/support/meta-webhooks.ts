import { createHmac } from 'node:crypto';
import type { TestApp } from './test-app';

/** A WhatsApp Business Account notification for one phone number id. */
export const whatsappNotification = (
  numberId: string,
  value: { messages?: unknown[]; statuses?: unknown[] },
) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: numberId },
            ...value,
          },
        },
      ],
    },
  ],
});

/** A Messenger page notification: `events` are `entry[0].messaging[]` items from `psid`. */
export const messangerNotification = (
  pageId: string,
  psid: string,
  events: Record<string, unknown>[],
) => ({
  object: 'page',
  entry: [
    {
      id: pageId,
      time: Date.now(),
      messaging: events.map((event) => ({
        sender: { id: psid },
        recipient: { id: pageId },
        ...event,
      })),
    },
  ],
});

/** What Meta sends: the HMAC-SHA256 of the exact bytes, computed here independently of agentline. */
export const metaSignature = (raw: string | Buffer, secret: string) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

/** POSTs a notification to a channel's webhook as Meta does: JSON, signed with `secret`. */
export function postToWebhook(
  app: TestApp,
  kind: 'whatsapp' | 'messanger',
  channelId: string,
  payload: unknown,
  secret: string,
) {
  const raw = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return app
    .http()
    .post(`/v1/webhooks/${kind}/${channelId}`)
    .set('content-type', 'application/json')
    .set('x-hub-signature-256', metaSignature(raw, secret))
    .send(raw);
}
