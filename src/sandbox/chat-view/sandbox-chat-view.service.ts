import { Injectable } from '@nestjs/common';
import type { Principal } from '../../common/auth/principal';
import { notFound } from '../../common/http/problem';
import { MAX_PAGE_SIZE } from '../../common/http/pagination.dto';
import { ChannelsService, WhatsappTemplateCatalog } from '../../channels';
import { SandboxChannelKind, SandboxConversations, SandboxMessage } from '../sandbox-conversations';
import { SANDBOX_TEMPLATES } from '../sandbox-templates';
import { RenderedTemplate, renderTemplate } from './template-rendering';

export const SANDBOX_KINDS: readonly SandboxChannelKind[] = ['whatsapp', 'messanger'];

export const isSandboxKind = (kind: string): kind is SandboxChannelKind =>
  (SANDBOX_KINDS as readonly string[]).includes(kind);

/** One channel of the organization, with the clients the sandbox has seen it talk to. */
export interface ChatChannel {
  kind: SandboxChannelKind;
  id: string;
  agent_id: string;
  /** The WhatsApp phone_number_id or the Messenger page id. */
  sender_id: string;
  status: string;
  /** Most recently active first, with the last message (a template not rendered). */
  clients: { client: string; last: ChatMessage }[];
}

/** A message as the page draws it: Meta's body, its state, and a template rendered. */
export interface ChatMessage {
  id: string;
  direction: SandboxMessage['direction'];
  type: string;
  state: SandboxMessage['state'];
  at: number;
  state_at: SandboxMessage['stateAt'];
  error: SandboxMessage['error'] | null;
  body: Record<string, unknown>;
  template?: RenderedTemplate;
}

/** What the live stream says changed: the page fetches that conversation again. */
export interface ChatChange {
  kind: SandboxChannelKind;
  channel_id: string;
  client: string;
  message_id: string;
}

/** The newest messages the page gets of a conversation (the store keeps up to 500). */
const CONVERSATION_MESSAGES = 200;
/** How often a stream may list the organization's channels again to place an unknown channel. */
const SENDERS_REFRESH_MS = 2_000;

/** A WhatsApp client as Meta writes wa_id (digits); a Messenger PSID as is. */
export const clientOf = (kind: SandboxChannelKind, client: string) =>
  kind === 'whatsapp' ? client.replace(/\D/g, '') : client.trim();

/**
 * What the chat view (GET /sandbox) reads: the organization's channels, a conversation as the
 * client's phone shows it, and which conversations change. Every read starts from the
 * organization's own channels, so another organization's conversations never appear.
 */
@Injectable()
export class SandboxChatView {
  constructor(
    private readonly channels: ChannelsService,
    private readonly conversations: SandboxConversations,
    private readonly templates: WhatsappTemplateCatalog,
  ) {}

  async listChannels(principal: Principal): Promise<ChatChannel[]> {
    const all: ChatChannel[] = [];
    for (const kind of SANDBOX_KINDS) {
      for (const channel of await this.allChannels(principal, kind)) {
        const clients = this.conversations.clientsOf(principal.organizationId, channel.id);
        all.push({
          kind,
          id: channel.id,
          agent_id: channel.agentId,
          sender_id: channel.senderId,
          status: channel.status,
          clients: clients.map(({ client, last }) => ({ client, last: toChatMessage(last) })),
        });
      }
    }
    return all;
  }

  /** Oldest first; the organization's channel or 404. */
  async conversation(
    principal: Principal,
    kind: string,
    channelId: string,
    client: string,
  ): Promise<ChatMessage[]> {
    if (!isSandboxKind(kind)) throw notFound('channel kind');
    const channel = await this.channels.get(kind, principal, channelId);
    const messages = this.conversations.conversation({
      organizationId: principal.organizationId,
      channelId: channel.id,
      client: clientOf(kind, client),
    });
    return this.toChatMessages(channel.id, messages.slice(-CONVERSATION_MESSAGES));
  }

  /**
   * Calls `listener` with each change to a conversation of the organization's channels; returns
   * the unsubscribe. A channel not among those known yet lists them again (at most every
   * SENDERS_REFRESH_MS), so a channel created while the page is open shows its messages.
   */
  watch(principal: Principal, listener: (change: ChatChange) => void): () => void {
    const channelIds = new Set<string>();
    let listedAt = 0;
    let listing: Promise<void> | undefined;
    const relist = (): Promise<void> => {
      listing ??= (async () => {
        const found = await Promise.all(
          SANDBOX_KINDS.map(async (kind) =>
            (await this.allChannels(principal, kind)).map((c) => c.id),
          ),
        );
        channelIds.clear();
        for (const id of found.flat()) channelIds.add(id);
        listedAt = Date.now();
      })().finally(() => (listing = undefined));
      return listing;
    };
    /** Whether the message is in one of the organization's live channels. */
    const ours = async (message: SandboxMessage) => {
      if (message.organizationId !== principal.organizationId) return false;
      if (!channelIds.has(message.channelId) && Date.now() - listedAt >= SENDERS_REFRESH_MS) {
        await relist();
      }
      return channelIds.has(message.channelId);
    };
    const unsubscribe = this.conversations.subscribe((message) => {
      ours(message).then(
        (yes) => {
          if (!yes) return;
          listener({
            kind: message.kind,
            channel_id: message.channelId,
            client: message.client,
            message_id: message.id,
          });
        },
        // A failed listing (the database away) only delays the update: the page polls too.
        () => undefined,
      );
    });
    void relist().catch(() => undefined);
    return unsubscribe;
  }

  private async allChannels(principal: Principal, kind: SandboxChannelKind) {
    const channels = [];
    for (let offset = 0; ; offset += MAX_PAGE_SIZE) {
      const page = await this.channels.list(kind, principal, { offset, limit: MAX_PAGE_SIZE });
      channels.push(...page.items);
      if (page.items.length < MAX_PAGE_SIZE || channels.length >= page.total_count) {
        return channels;
      }
    }
  }

  /** Template messages are rendered with the channel's catalog (one query for all of them). */
  private async toChatMessages(
    channelId: string,
    messages: readonly SandboxMessage[],
  ): Promise<ChatMessage[]> {
    const templates = messages
      .filter((m) => m.kind === 'whatsapp' && m.type === 'template')
      .map((message) => ({ message, template: templateOf(message) }));
    const refs = templates.map(({ template }) => templateRef(template));
    const lookups = await this.templates.lookupMany(refs.map((ref) => ({ channelId, ...ref })));
    const rendered = new Map(
      templates.map(({ message, template }, index) => {
        const lookup = lookups[index];
        // The channel's synced catalog, else the catalog every sandbox account lists.
        const components =
          (lookup.catalog ? lookup.template?.components : undefined) ??
          SANDBOX_TEMPLATES.find(
            (known) => known.name === refs[index].name && known.language === refs[index].language,
          )?.components;
        return [message.id, renderTemplate(template, components)];
      }),
    );
    return messages.map((message) => toChatMessage(message, rendered.get(message.id)));
  }
}

const toChatMessage = (message: SandboxMessage, template?: RenderedTemplate): ChatMessage => ({
  id: message.id,
  direction: message.direction,
  type: message.type,
  state: message.state,
  at: message.at,
  state_at: message.stateAt,
  error: message.error ?? null,
  body: message.body,
  ...(template && { template }),
});

/** The name and language a template send names (Meta's `language.code`). */
const templateRef = (template: Record<string, unknown>) => {
  const language = template.language as { code?: unknown } | undefined;
  return { name: String(template.name ?? ''), language: String(language?.code ?? '') };
};

const templateOf = (message: SandboxMessage): Record<string, unknown> => {
  const template = message.body.template;
  return typeof template === 'object' && template !== null
    ? (template as Record<string, unknown>)
    : {};
};
