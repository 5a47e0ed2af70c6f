import { Clock } from '../common/clock';
import { Inject, Injectable } from '@nestjs/common';
import { ProviderAccount, ProviderAccounts } from '../channels';
import type { Principal } from '../common/auth/principal';
import { notFound, ProblemException, validationFailed } from '../common/http/problem';
import { isObject } from './graph/graph-message-shapes';
import { newMid, newWamid } from './graph/graph-ids';
import { SandboxInboundDto, SandboxInboundResultDto } from './dto/sandbox-inbound.dto';
import {
  messangerNotification,
  metaSeconds,
  whatsappInboundNotification,
} from './meta-notifications';
import { SandboxChannelKind, SandboxConversations, SandboxMessage } from './sandbox-conversations';
import { SandboxMedia } from './sandbox-media';
import { SANDBOX_CONFIG, SandboxConfig } from './sandbox.config';
import { SandboxWebhooks } from './sandbox-webhooks';

/** The kinds' labels in sentences, as the channels name them. */
const LABELS: Record<SandboxChannelKind, string> = { whatsapp: 'WhatsApp', messanger: 'Messanger' };

/** The message types a WhatsApp client sends (Cloud API, webhook `messages[].type`). */
const WHATSAPP_TYPES = [
  'text',
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'location',
  'contacts',
  'interactive',
  'button',
  'reaction',
  'order',
];
const WHATSAPP_MEDIA = ['image', 'video', 'audio', 'document', 'sticker'];
/** Keys of a WhatsApp message besides its type's own. */
const WHATSAPP_EXTRA_KEYS = ['type', 'context', 'referral'];
/** Keys of a Messenger `message` (Messenger Platform, "messages" webhook event). */
const MESSANGER_MESSAGE_KEYS = ['text', 'attachments', 'quick_reply', 'reply_to'];
/** Messenger events that are not messages, given as `message: { <event>: {...} }`. */
const MESSANGER_EVENTS = ['reaction', 'postback'];

const E164 = /^\+?[1-9]\d{5,14}$/;
const PSID = /^\d{1,32}$/;

export const SANDBOX_OFF =
  'The Meta sandbox is off: start agentline with META_SANDBOX=true (npm run start:sandbox) to simulate clients.';

const invalid = (field: string, message: string) =>
  validationFailed([{ field, message }], `The request is not valid: ${message}.`);

/**
 * A simulated client writes to a sandbox channel: Meta's notification for it is built, signed and
 * posted to the channel's own webhook URL, as Meta would, and kept in the sandbox's conversations.
 */
@Injectable()
export class SandboxInbound {
  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    private readonly accounts: ProviderAccounts,
    private readonly conversations: SandboxConversations,
    private readonly media: SandboxMedia,
    private readonly webhooks: SandboxWebhooks,
    private readonly clock: Clock,
  ) {}

  async write(
    kind: SandboxChannelKind,
    principal: Principal,
    channelId: string,
    input: SandboxInboundDto,
  ): Promise<SandboxInboundResultDto> {
    if (!this.config.enabled) throw new ProblemException('not_found', SANDBOX_OFF);
    if ((input.text === undefined) === (input.message === undefined)) {
      throw input.text === undefined
        ? invalid('text', 'text or message is required')
        : invalid('message', 'give text or message, not both');
    }
    const account = await this.accounts.ofOrganization(kind, principal.organizationId, channelId);
    if (!account) throw notFound(`${LABELS[kind]} channel`);
    const at = this.clock.now();
    const built =
      kind === 'whatsapp' ? this.whatsapp(account, input, at) : this.messanger(account, input, at);
    const stored = this.conversations.add({
      ...built.message,
      kind,
      channelId: account.channelId,
      organizationId: account.organizationId,
      senderId: account.senderId,
      direction: 'from_client',
      state: 'received',
      at,
      stateAt: { received: at },
    });
    const answer = await this.webhooks.post(account, built.payload);
    if (answer.accepted) return { message_id: stored.id, state: 'received' };
    const reason = answer.reason ?? "The channel's webhook refused the notification";
    this.conversations.advance(stored.id, 'failed', this.clock.now(), {
      code: answer.status ?? 0,
      title: 'Webhook refused',
      message: reason,
    });
    return { message_id: stored.id, state: 'failed', reason };
  }

  private whatsapp(account: ProviderAccount, input: SandboxInboundDto, at: number): Built {
    if (!E164.test(input.from)) {
      throw invalid('from', 'from must be an E.164 phone number, such as +34612345678');
    }
    const waId = input.from.replace(/^\+/, '');
    const content =
      input.text !== undefined
        ? { type: 'text', text: { body: input.text } }
        : this.whatsappMessage(account, input.message ?? {});
    const message = { from: waId, id: newWamid(waId), timestamp: metaSeconds(at), ...content };
    return {
      message: { id: message.id, client: waId, type: String(content.type), body: message },
      payload: whatsappInboundNotification(
        account.senderId,
        { waId, name: input.name ?? 'Sandbox client' },
        message,
      ),
    };
  }

  /** A message object in Meta's shape, checked for its type and, for media, a sandbox media id. */
  private whatsappMessage(
    account: ProviderAccount,
    message: Record<string, unknown>,
  ): Record<string, unknown> & { type: string } {
    const type = message.type;
    if (typeof type !== 'string' || !WHATSAPP_TYPES.includes(type)) {
      throw invalid('message.type', `message.type must be one of ${WHATSAPP_TYPES.join(', ')}`);
    }
    const extra = Object.keys(message).find(
      (key) => key !== type && !WHATSAPP_EXTRA_KEYS.includes(key),
    );
    if (extra)
      throw invalid(`message.${extra}`, `message.${extra} is not a field of a ${type} message`);
    const value = message[type];
    if (type === 'contacts' ? !Array.isArray(value) : !isObject(value)) {
      throw invalid(`message.${type}`, `message.${type} is required for a ${type} message`);
    }
    if (!WHATSAPP_MEDIA.includes(type)) return { ...message, type };
    const media = value as Record<string, unknown>;
    const file = typeof media.id === 'string' ? this.media.find(media.id) : undefined;
    if (!file || file.channelId !== account.channelId) {
      throw invalid(
        `message.${type}.id`,
        `message.${type}.id must be the id of a media uploaded to this channel (POST /v1/channels/whatsapp/{id}/media)`,
      );
    }
    return {
      ...message,
      type,
      [type]: { ...media, mime_type: file.mimeType, sha256: file.sha256, id: file.id },
    };
  }

  private messanger(account: ProviderAccount, input: SandboxInboundDto, at: number): Built {
    if (!PSID.test(input.from)) {
      throw invalid('from', 'from must be a page-scoped id (digits)');
    }
    const mid = newMid();
    const given = input.text !== undefined ? { text: input.text } : (input.message ?? {});
    const eventName = MESSANGER_EVENTS.find((name) => name in given);
    let event: Record<string, unknown>;
    let type: string;
    if (eventName) {
      if (Object.keys(given).length !== 1 || !isObject(given[eventName])) {
        throw invalid(
          `message.${eventName}`,
          `message.${eventName} must be the only field, an object`,
        );
      }
      event = { timestamp: at, [eventName]: given[eventName] };
      type = eventName;
    } else {
      const extra = Object.keys(given).find((key) => !MESSANGER_MESSAGE_KEYS.includes(key));
      if (extra)
        throw invalid(`message.${extra}`, `message.${extra} is not a field of a Messenger message`);
      if (Object.keys(given).length === 0) {
        throw invalid('message', 'message needs text, attachments or quick_reply');
      }
      event = { timestamp: at, message: { mid, ...given } };
      const attachments = given.attachments;
      const first: unknown = Array.isArray(attachments) ? attachments[0] : undefined;
      type = isObject(first) && typeof first.type === 'string' ? first.type : 'text';
    }
    return {
      message: { id: mid, client: input.from, type, body: event },
      payload: messangerNotification(account.senderId, input.from, at, [event]),
    };
  }
}

interface Built {
  message: Pick<SandboxMessage, 'id' | 'client' | 'type' | 'body'>;
  payload: Record<string, unknown>;
}
