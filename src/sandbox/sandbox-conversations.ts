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
  /**
   * The agentline channel it belongs to, and its organization: what the conversation is kept
   * under. A number or page id is not enough: a deleted channel's number may be another
   * organization's channel later, which must not see (or answer) the old conversations.
   */
  channelId: string;
  organizationId: string;
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
/**
 * The most conversations it keeps per organization (least recently active forgotten first): one
 * organization's traffic never forgets another's conversations.
 */
export const SANDBOX_CONVERSATIONS = 1_000;
/** The most organizations it keeps conversations of (least recently active forgotten first). */
export const SANDBOX_ORGANIZATIONS = 100;

interface Conversation {
  messages: SandboxMessage[];
  /** When the client last wrote: kept apart from the messages, which the agent's may push out. */
  lastFromClient?: number;
}

/** What addresses one conversation: the organization, its channel and the client. */
export interface SandboxConversationRef {
  organizationId: string;
  channelId: string;
  client: string;
}

/**
 * The sandbox's memory of every conversation: what the stand-in for Meta accepted and what
 * simulated clients wrote, with the states a phone shows, kept per organization and channel. In
 * memory, per process, bounded per organization: the sandbox is a single-process tool for trying
 * agentline (docs/sandbox.md), and a restart starts it empty.
 */
@Injectable()
export class SandboxConversations {
  /** Per organization, then by conversationKey; both in order of last activity (a Map keeps insertion order). */
  private readonly organizations = new Map<string, Map<string, Conversation>>();
  private readonly byId = new Map<string, SandboxMessage>();
  private readonly listeners = new Set<(message: SandboxMessage) => void>();

  add(message: SandboxMessage): SandboxMessage {
    const conversations = this.organizations.get(message.organizationId) ?? new Map();
    this.organizations.delete(message.organizationId);
    this.organizations.set(message.organizationId, conversations);
    const key = conversationKey(message.channelId, message.client);
    const conversation: Conversation = conversations.get(key) ?? { messages: [] };
    conversations.delete(key);
    conversations.set(key, conversation);
    const messages = conversation.messages;
    messages.push(message);
    if (message.direction === 'from_client') conversation.lastFromClient = message.at;
    this.byId.set(message.id, message);
    while (messages.length > SANDBOX_MESSAGES_PER_CONVERSATION) {
      const dropped = messages.shift();
      if (dropped) this.byId.delete(dropped.id);
    }
    while (conversations.size > SANDBOX_CONVERSATIONS) {
      const [oldest, forgotten] = conversations.entries().next().value as [string, Conversation];
      conversations.delete(oldest);
      this.forget(forgotten);
    }
    while (this.organizations.size > SANDBOX_ORGANIZATIONS) {
      const [oldest, forgotten] = this.organizations.entries().next().value as [
        string,
        Map<string, Conversation>,
      ];
      this.organizations.delete(oldest);
      for (const gone of forgotten.values()) this.forget(gone);
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
  conversation(ref: SandboxConversationRef): readonly SandboxMessage[] {
    return this.get(ref)?.messages ?? [];
  }

  /** The conversations of one channel, most recently active first. */
  clientsOf(organizationId: string, channelId: string): { client: string; last: SandboxMessage }[] {
    const prefix = conversationKey(channelId, '');
    return [...(this.organizations.get(organizationId)?.entries() ?? [])]
      .filter(([key, { messages }]) => key.startsWith(prefix) && messages.length > 0)
      .reverse()
      .map(([, { messages }]) => ({
        client: messages[messages.length - 1].client,
        last: messages[messages.length - 1],
      }));
  }

  /** The time of the client's last message in a conversation (for Meta's 24-hour window). */
  lastFromClient(ref: SandboxConversationRef): number | undefined {
    return this.get(ref)?.lastFromClient;
  }

  /** Called with every message added or advanced (the chat view's live updates); returns the unsubscribe. */
  subscribe(listener: (message: SandboxMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private get({ organizationId, channelId, client }: SandboxConversationRef) {
    return this.organizations.get(organizationId)?.get(conversationKey(channelId, client));
  }

  private forget(conversation: Conversation): void {
    for (const gone of conversation.messages) this.byId.delete(gone.id);
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

/** A channel id is a UUID: unique across kinds. */
function conversationKey(channelId: string, client: string): string {
  return `${channelId}\u0000${client}`;
}
