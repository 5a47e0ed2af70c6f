import type {
  TemplateButton,
  TemplateHeader,
} from './kinds/whatsapp/templates/template-message.dto';
import type { MessageType } from './messages/delivery.dto';

/**
 * A kind of channel, as its URLs, table and `deliveries.channel_kind` spell it (`messanger` kept as
 * the contract has it): one of the registered descriptors (src/channels/kinds/).
 */
export type ChannelKind = string;

/**
 * A kind's own message beyond plain text and templates (WhatsApp media, location, contacts,
 * interactive, reaction, a quoted reply; Messenger quick replies, attachments, message tags): the
 * send request as the kind's folder validated it, kept with the delivery and read back by the
 * kind's transport, which alone knows its fields.
 */
export interface RichMessage {
  type: MessageType;
  [field: string]: unknown;
}

/**
 * What a channel sends: free text, a pre-approved template with its body parameters (positional,
 * or named) and its header and button parameters (WhatsApp's template components), or rich.
 */
export type OutboundMessage =
  | { type: 'text'; body: string }
  | {
      type: 'template';
      name: string;
      languageCode: string;
      bodyParameters: string[];
      namedParameters?: Record<string, string>;
      header?: TemplateHeader;
      buttons?: TemplateButton[];
    }
  | { type: 'rich'; content: RichMessage };

/** What the delivery says went out: the rich message's own type, else text or template. */
export const sentMessageType = (message: OutboundMessage): MessageType =>
  message.type === 'rich' ? message.content.type : message.type;

/** What became of one send; a transport never throws, so every failure lands in one of these. */
export type SendOutcome =
  /** Accepted; `messageId` is Meta's id (wamid), or null when the answer could not be read. */
  | {
      kind: 'sent';
      messageId: string | null;
      /**
       * Other forms of the recipient the provider's answer names (WhatsApp's `contacts[].wa_id` or
       * `user_id` when they differ from the number dialled): the same person, learned.
       */
      recipientForms?: string[];
    }
  /** Worth retrying later: network trouble, time-outs, rate limits, server errors. */
  | { kind: 'transient'; code: string; message: string; retryAfterMs?: number }
  /** Retrying will not help: the send fails with the provider's code and message. */
  | { kind: 'permanent'; code: string; message: string }
  /**
   * The provider refused free-form text outside its messaging window (WhatsApp's 131047): the
   * same message may go at once as a template, if the sender has one.
   */
  | { kind: 'resend_as_template'; code: string; message: string }
  /** The access token is invalid or expired: the channel is deactivated (ChannelMessageSender). */
  | { kind: 'token_rejected'; code: string; message: string };

/** Who sends: the provider's id of the sending number or page, and its access token. */
export interface SenderCredentials {
  senderId: string;
  accessToken: string;
}

export interface ChannelLimits {
  /** The longest text body the provider accepts, in UTF-16 code units. */
  textLength: number;
}

/** One per channel kind (src/channels/<kind>/<kind>.transport.ts): the provider's send call. */
export interface ChannelTransport {
  readonly limits: ChannelLimits;
  send(from: SenderCredentials, to: string, message: OutboundMessage): Promise<SendOutcome>;
  /**
   * Whether the provider's error code, in a send's answer or in a later `failed` status, means
   * "text refused outside the messaging window; a template may go instead".
   */
  resendsAsTemplate(errorCode: string): boolean;
}

/** What the provider says became of a sent message (WhatsApp `statuses[]`, Messenger delivery/read). */
export const MESSAGE_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
