import { Injectable } from '@nestjs/common';

/** The two kinds of channel the sandbox stands in for. */
export type SandboxChannelKind = 'whatsapp' | 'messanger';

/**
 * What the client's phone shows of a message to them: Meta accepted it, then its notifications
 * (`sent`, `delivered`, `read`) or a failure with Meta's reason. A client's own messages are
 * `received` (the webhook took them) or `failed` (the webhook refused them).
 */
export type SandboxMessageState =
  'accepted' | 'sent' | 'delivered' | 'read' | 'received' | 'failed';

export interface SandboxMessage {
  /** Meta's id for it: a `wamid.…` (WhatsApp) or an `m_…` mid (Messenger). */
  id: string;
  kind: SandboxChannelKind;
  /** The business side: the WhatsApp phone_number_id or the Messenger page id. */
  senderId: string;
  /** The client: a WhatsApp number (digits, as Meta writes wa_id) or a Messenger PSID. */
  client: string;
  direction: 'to_client' | 'from_client';
  /** Meta's message type (`text`, `image`, `template`, `interactive`, …). */
  type: string;
  /** The message object as it went over the wire, in Meta's shape (the Graph body, or the webhook's message). */
  body: Record<string, unknown>;
  state: SandboxMessageState;
  /** Meta's error, when `state` is `failed`. */
  error?: { code: number; title: string; message: string };
  /** Epoch ms when the message was made, then of each state it reached. */
  at: number;
  stateAt: Partial<Record<SandboxMessageState, number>>;
}

/** The most messages the sandbox keeps per conversation (oldest forgotten first). */
export const SANDBOX_MESSAGES_PER_CONVERSATION = 500;
/** The most conversations it keeps (least recently active forgotten first). */
export const SANDBOX_CONVERSATIONS = 1_000;

/**
 * The sandbox's memory of every conversation: what the stand-in for Meta accepted and what
 * simulated clients wrote, with the states a phone shows. In memory, per process, bounded: the
 * sandbox is a single-process tool for trying agentline (docs/sandbox.md), and a restart starts
 * it empty.
 */
@Injectable()
export class SandboxConversations {
  /** By conversationKey, in order of last activity (a Map keeps insertion order). */
  private readonly conversations = new Map<string, SandboxMessage[]>();
  private readonly byId = new Map<string, SandboxMessage>();
  private readonly listeners = new Set<(message: SandboxMessage) => void>();

  add(message: SandboxMessage): SandboxMessage {
    const key = conversationKey(message.kind, message.senderId, message.client);
    const messages = this.conversations.get(key) ?? [];
    this.conversations.delete(key);
    this.conversations.set(key, messages);
    messages.push(message);
    this.byId.set(message.id, message);
    while (messages.length > SANDBOX_MESSAGES_PER_CONVERSATION) {
      const dropped = messages.shift();
      if (dropped) this.byId.delete(dropped.id);
    }
    while (this.conversations.size > SANDBOX_CONVERSATIONS) {
      const [oldest, forgotten] = this.conversations.entries().next().value as [
        string,
        SandboxMessage[],
      ];
      this.conversations.delete(oldest);
      for (const gone of forgotten) this.byId.delete(gone.id);
    }
    this.changed(message);
    return message;
  }

  /** Moves a message to a later state (never back: `read` stays `read`). */
  advance(
    id: string,
    state: SandboxMessageState,
    at: number,
    error?: SandboxMessage['error'],
  ): SandboxMessage | undefined {
    const message = this.byId.get(id);
    if (!message) return undefined;
    if (STATE_ORDER[state] <= STATE_ORDER[message.state] && state !== 'failed') return message;
    message.state = state;
    message.stateAt[state] = at;
    if (error) message.error = error;
    this.changed(message);
    return message;
  }

  find(id: string): SandboxMessage | undefined {
    return this.byId.get(id);
  }

  /** One conversation, oldest message first. */
  conversation(
    kind: SandboxChannelKind,
    senderId: string,
    client: string,
  ): readonly SandboxMessage[] {
    return this.conversations.get(conversationKey(kind, senderId, client)) ?? [];
  }

  /** The conversations of one business sender (a number or a page), most recently active first. */
  clientsOf(
    kind: SandboxChannelKind,
    senderId: string,
  ): { client: string; last: SandboxMessage }[] {
    const prefix = conversationKey(kind, senderId, '');
    return [...this.conversations.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .reverse()
      .map(([, messages]) => ({
        client: messages[messages.length - 1].client,
        last: messages[messages.length - 1],
      }));
  }

  /** The time of the client's last message in a conversation (for Meta's 24-hour window). */
  lastFromClient(kind: SandboxChannelKind, senderId: string, client: string): number | undefined {
    const messages = this.conversation(kind, senderId, client);
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i].direction === 'from_client') return messages[i].at;
    }
    return undefined;
  }

  /** Called with every message added or advanced (the chat view's live updates); returns the unsubscribe. */
  subscribe(listener: (message: SandboxMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(message: SandboxMessage): void {
    for (const listener of this.listeners) listener(message);
  }
}

const STATE_ORDER: Record<SandboxMessageState, number> = {
  accepted: 0,
  received: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  failed: 4,
};

function conversationKey(kind: SandboxChannelKind, senderId: string, client: string): string {
  return `${kind}\u0000${senderId}\u0000${client}`;
}
