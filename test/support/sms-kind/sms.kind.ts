import type {
  ChannelTransport,
  OutboundMessage,
  SendOutcome,
} from '../../../src/channels/channel-transport';
import type {
  ChannelKindDescriptor,
  StoredChannel,
} from '../../../src/channels/kinds/channel-kind';
import {
  inboundMessage,
  type ParsedNotification,
  type ReadItem,
  type SetAsideItem,
} from '../../../src/channels/webhooks/inbound-notification';

/**
 * A third channel kind that exists only in tests: an SMS provider with a JSON API, registered by
 * SmsKindModule. It proves that a kind is its folder: nothing outside this folder and the test
 * knows it (docs/channels.md, "Adding a kind").
 */

/** Its table: the columns every kind's table has, the sender number under its own name. */
export const SMS_CHANNELS_TABLE = [
  `
  CREATE TABLE IF NOT EXISTS sms_channels (
    id uuid PRIMARY KEY,
    organization_id text NOT NULL,
    agent_id text NOT NULL,
    sender_number text NOT NULL,
    access_token_encrypted text NOT NULL,
    app_secret_encrypted text,
    status text NOT NULL,
    status_reason_code text,
    status_reason_message text,
    verification_token text NOT NULL UNIQUE,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted_at timestamptz
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS sms_channels_sender_key
     ON sms_channels (sender_number) WHERE deleted_at IS NULL`,
];

/** The row, as TypeORM would describe it (this kind writes through ChannelStore's SQL). */
export class SmsChannelRow {
  id!: string;
  sender_number!: string;
}

/** What the SMS provider's API answers; agentline's generic layers never see these shapes. */
export class SmsTransport implements ChannelTransport {
  readonly limits = { textLength: 160 };

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 2_000,
  ) {}

  async send(
    from: { senderId: string; accessToken: string },
    to: string,
    message: OutboundMessage,
  ): Promise<SendOutcome> {
    if (message.type !== 'text') {
      return { kind: 'permanent', code: 'unsupported_message', message: 'SMS sends text only.' };
    }
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${from.accessToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ from: from.senderId, to, text: message.body }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      return { kind: 'transient', code: 'network', message: 'The SMS provider did not answer.' };
    }
    const body = (await response.json().catch(() => ({}))) as { id?: unknown; error?: unknown };
    const error = typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
    if (response.ok) {
      return { kind: 'sent', messageId: typeof body.id === 'string' ? body.id : null };
    }
    if (response.status === 401) return { kind: 'token_rejected', code: 'sms_401', message: error };
    if (response.status === 429 || response.status >= 500) {
      return { kind: 'transient', code: `sms_${response.status}`, message: error };
    }
    return { kind: 'permanent', code: `sms_${response.status}`, message: error };
  }

  resendsAsTemplate(): boolean {
    return false;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `{account, events: [{type: "message", id, from, text, sent_at} | {type: "status", message_id,
 * status, at}]}`: each event read on its own, a bad one set aside with its reason.
 */
export function parseSmsNotification(body: unknown): ParsedNotification {
  if (!isRecord(body) || typeof body.account !== 'string' || !Array.isArray(body.events)) {
    return { read: [], setAside: [], unreadable: 'not an SMS provider notification' };
  }
  const account = body.account;
  const read: ReadItem[] = [];
  const setAside: SetAsideItem[] = [];
  body.events.forEach((event: unknown, index) => {
    const path = `events[${index}]`;
    if (isRecord(event) && event.type === 'message') {
      const { id, from, text, sent_at: sentAt } = event;
      if (typeof id === 'string' && typeof from === 'string' && typeof sentAt === 'number') {
        read.push({
          path,
          item: 'message',
          content: event,
          event: inboundMessage({
            account,
            sender: from,
            messageId: id,
            type: 'text',
            text: typeof text === 'string' ? text : null,
            at: sentAt * 1000,
            raw: event,
          }),
        });
        return;
      }
    }
    if (isRecord(event) && event.type === 'status') {
      const { message_id: messageId, status, at } = event;
      if (
        typeof messageId === 'string' &&
        (status === 'delivered' || status === 'read' || status === 'failed') &&
        typeof at === 'number'
      ) {
        read.push({
          path,
          item: 'status',
          content: event,
          event: { kind: 'status', account, status, at: at * 1000, messages: { ids: [messageId] } },
        });
        return;
      }
    }
    setAside.push({
      path,
      item: 'event',
      content: event,
      reason: 'invalid_field',
      detail: 'needs type message (id, from, sent_at) or status (message_id, status, at)',
    });
  });
  return { read, setAside };
}

export function toSmsChannelResponse(channel: StoredChannel, webhookUrl: string) {
  return {
    id: channel.id,
    agent_id: channel.agentId,
    sender_number: channel.senderId,
    status: channel.status,
    type: 'Sms',
    webhook_url: webhookUrl,
    verification_token: channel.verificationToken,
  };
}

export const SMS_KIND: ChannelKindDescriptor = {
  kind: 'sms',
  label: 'SMS',
  type: 'Sms',
  table: 'sms_channels',
  entity: SmsChannelRow,
  senderIdColumn: 'sender_number',
  senderIdUniqueIndex: 'sms_channels_sender_key',
  recipients: 'phone',
  // SMS has no messaging window: text any time, and no templates.
  outsideWindow: 'none',
  downloadsMedia: false,
  webhookAccountName: 'account',
  parseNotification: parseSmsNotification,
  createTransport: ({ env }) => new SmsTransport(env.SMS_API_URL ?? 'http://127.0.0.1:9'),
  toResponse: toSmsChannelResponse,
};
