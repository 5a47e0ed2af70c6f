import { createHmac, randomUUID } from 'node:crypto';
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

/** Meta's timestamps: whole seconds, as a string. */
const metaSeconds = (ms: number) => String(Math.floor(ms / 1000));

/** A client's text message as a WhatsApp notification carries it; `at` is when it was written. */
export const aWhatsappText = ({
  body = 'Hello',
  at = Date.now(),
  timestamp = metaSeconds(at),
  from = '34612345678',
  id = `wamid.${randomUUID()}`,
}: { body?: string; at?: number; timestamp?: string; from?: string; id?: string } = {}) => ({
  from,
  id,
  timestamp,
  type: 'text',
  text: { body },
});

/** The status of a message sent (`id`, its wamid) as a WhatsApp notification carries it. */
export const aWhatsappStatus = (
  id: string,
  status: string,
  {
    at = Date.now(),
    timestamp = metaSeconds(at),
    recipient_id = '34612345678',
    errors,
  }: { at?: number; timestamp?: string; recipient_id?: string; errors?: unknown[] } = {},
) => ({ id, status, timestamp, recipient_id, ...(errors && { errors }) });

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
  app: Pick<TestApp, 'http'>,
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

/**
 * One of Meta's documented payloads (meta-payloads.ts) addressed to a test's WhatsApp number:
 * a copy with `phone_number_id` replaced, and each message given a fresh id (the examples share
 * Meta's one id, and a resend is kept once) and, with `at`, that time.
 */
export function forWhatsappNumber(
  payload: Record<string, unknown>,
  numberId: string,
  { at }: { at?: number } = {},
): Record<string, unknown> {
  const copy = structuredClone(payload) as {
    entry: {
      changes: { value: { metadata?: { phone_number_id?: string }; messages?: unknown[] } }[];
    }[];
  };
  for (const entry of copy.entry) {
    for (const { value } of entry.changes) {
      if (value.metadata) value.metadata.phone_number_id = numberId;
      for (const message of (value.messages ?? []) as Record<string, unknown>[]) {
        message.id = `wamid.${randomUUID()}`;
        if (at !== undefined) message.timestamp = metaSeconds(at);
      }
    }
  }
  return copy as unknown as Record<string, unknown>;
}
