import { createHash } from 'node:crypto';

/**
 * Meta's webhook notifications as the sandbox sends them, in the shapes Meta documents (and
 * test/support/meta-payloads.ts quotes): WhatsApp's `whatsapp_business_account` object with
 * `entry[].changes[].value` holding `contacts` and `messages`, or `statuses`; Messenger's `page`
 * object with `entry[].messaging[]` events (a message, `delivery`, `read`). Pure: the inbound
 * simulator and the status notifications build every body here.
 */

/** Meta's timestamps in WhatsApp notifications: whole seconds, as a string. */
export const metaSeconds = (ms: number): string => String(Math.floor(ms / 1000));

/** The sandbox's business account and display number, the same for every sandbox number. */
export const SANDBOX_WABA_ID = '102290129340398';
export const SANDBOX_DISPLAY_NUMBER = '15550783881';

/** WhatsApp's notification for one phone number id: its messages (with the sender's contact), or statuses. */
export function whatsappNotification(
  numberId: string,
  value: { contacts?: unknown[]; messages?: unknown[]; statuses?: unknown[] },
): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: SANDBOX_WABA_ID,
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: SANDBOX_DISPLAY_NUMBER, phone_number_id: numberId },
              ...value,
            },
            field: 'messages',
          },
        ],
      },
    ],
  };
}

/** A client's message: `contacts: [{ profile: { name }, wa_id }]` and the message itself. */
export function whatsappInboundNotification(
  numberId: string,
  { waId, name }: { waId: string; name: string },
  message: Record<string, unknown>,
): Record<string, unknown> {
  return whatsappNotification(numberId, {
    contacts: [{ profile: { name }, wa_id: waId }],
    messages: [message],
  });
}

/** Meta's error in a `failed` status (its error-codes reference). */
export interface MetaStatusError {
  code: number;
  title: string;
  message: string;
  error_data: { details: string };
  href: string;
}

export const UNDELIVERABLE: MetaStatusError = {
  code: 131026,
  title: 'Message undeliverable',
  message: 'Message undeliverable',
  error_data: {
    details:
      'Unable to deliver message. Reasons can include: The recipient phone number is not a WhatsApp phone number.',
  },
  href: '/documentation/business-messaging/whatsapp/support/error-codes',
};

/** Per-message pricing (Meta's `PMP`, since July 2025): a reply in the window is free. */
export type PricingCategory = 'service' | 'utility' | 'marketing' | 'authentication';

/**
 * A status of a message sent: `sent`, `delivered` and `read` carry its conversation and pricing
 * (`sent` the conversation's expiry too), `failed` its errors.
 */
export function whatsappStatus(
  wamid: string,
  status: 'sent' | 'delivered' | 'read' | 'failed',
  { recipient, at, category }: { recipient: string; at: number; category: PricingCategory },
  errors?: MetaStatusError[],
): Record<string, unknown> {
  const base = { id: wamid, status, timestamp: metaSeconds(at), recipient_id: recipient };
  if (status === 'failed') return { ...base, errors: errors ?? [UNDELIVERABLE] };
  return {
    ...base,
    conversation: {
      id: conversationId(wamid),
      ...(status === 'sent' && { expiration_timestamp: metaSeconds(at + 24 * 60 * 60 * 1000) }),
      origin: { type: category },
    },
    pricing: {
      billable: category !== 'service',
      pricing_model: 'PMP',
      category,
      type: category === 'service' ? 'free_customer_service' : 'regular',
    },
  };
}

/** The same conversation id for every status of one message (Meta's are 32 hex characters). */
const conversationId = (wamid: string): string => createHash('md5').update(wamid).digest('hex');

/** A Messenger page notification: `events` are `entry[0].messaging[]` items between the page and a PSID. */
export function messangerNotification(
  pageId: string,
  psid: string,
  at: number,
  events: Record<string, unknown>[],
): Record<string, unknown> {
  return {
    object: 'page',
    entry: [
      {
        id: pageId,
        time: at,
        messaging: events.map((event) => ({
          sender: { id: psid },
          recipient: { id: pageId },
          ...event,
        })),
      },
    ],
  };
}

/** Messenger's `message_deliveries`: these mids, and everything before the watermark, delivered. */
export const messangerDelivery = (mid: string, at: number) => ({
  delivery: { mids: [mid], watermark: at },
});

/** Messenger's `message_reads`: everything before the watermark read. */
export const messangerRead = (at: number) => ({ timestamp: at, read: { watermark: at } });
