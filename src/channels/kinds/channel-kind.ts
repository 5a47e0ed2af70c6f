import type { ChannelKind, ChannelTransport } from '../channel-transport';
import type { GraphApiClient } from './meta/graph-api.client';
import type { ParsedNotification } from '../webhooks/inbound-notification';

/**
 * A channel row as every kind stores it: each kind has a table of its own with the same columns,
 * the provider's id of the sending account (a WhatsApp phone number id, a Page id) under the
 * kind's own column name.
 */
export interface StoredChannel {
  kind: ChannelKind;
  id: string;
  organizationId: string;
  agentId: string;
  /** The provider's id of the account that sends and receives (`number_id`, `user_id`, ...). */
  senderId: string;
  accessTokenEncrypted: string;
  /** Its own webhook signing secret, sealed; null when the global list verifies it. */
  appSecretEncrypted: string | null;
  status: 'active' | 'inactive';
  statusReasonCode: string | null;
  statusReasonMessage: string | null;
  verificationToken: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  /**
   * The kind's own columns (its descriptor's `ownColumns`), by column name, as the database gave
   * them: WhatsApp's business account and its template catalog's state. Empty for other kinds.
   */
  own: Record<string, unknown>;
}

/** What a kind's transport may be built from: the shared Graph client, and the environment. */
export interface ChannelKindDependencies {
  graph: GraphApiClient;
  env: NodeJS.ProcessEnv;
}

/**
 * Everything agentline knows of one kind of channel, in its folder (`src/channels/kinds/<kind>/`):
 * services, the webhook inbox and the delivery worker iterate the list of these, never branch on
 * a kind's name. Novu's providers are the model: one interface owns both directions.
 */
export interface ChannelKindDescriptor {
  /** The URL segment (`/v1/channels/{kind}`), the table prefix, `deliveries.channel_kind`. */
  readonly kind: ChannelKind;
  /** In sentences: "WhatsApp channel 0190… is inactive". */
  readonly label: string;
  /** The contract's `type` of the channel, and a follow-up's `channel_type`. */
  readonly type: string;
  /** Its table (columns as StoredChannel) and the TypeORM entity that describes it. */
  readonly table: string;
  readonly entity: abstract new () => object;
  /** The column of the provider's account id (also its name on the wire), and its unique index. */
  readonly senderIdColumn: string;
  readonly senderIdUniqueIndex: string;
  /**
   * Columns of the kind's table beyond those every kind has (WhatsApp: `business_account_id` and
   * the template catalog's state): read into `StoredChannel.own`, and written on create and modify
   * when the kind's controller names them. None when left out.
   */
  readonly ownColumns?: readonly string[];
  /**
   * Who it writes to: E.164 phone numbers (normalised, and follow-ups may target the channel), or
   * ids the provider scopes to the account (Messenger's page-scoped ids), taken as given.
   */
  readonly recipients: 'phone' | 'scoped_id';
  /**
   * The other forms in which the provider may name the same recipient, known by rule before
   * anything is learned (WhatsApp: a Brazilian mobile with and without its ninth digit, Mexico's
   * `521`, Argentina's `549`). Opt-outs and the messaging window look at every form; a kind without
   * such rules leaves it out.
   */
  samePerson?(recipient: string): string[];
  /**
   * The provider's messaging window: outside it a template may go instead (`template`: templates
   * exist only for such kinds), a send now is refused before it is queued with the `refusal` as
   * the 422's detail, or there is no window and text may go any time (`none`).
   */
  readonly outsideWindow: 'template' | 'none' | { refusal(recipient: string): string };
  /**
   * Whether agentline serves the kind's inbound media (`/v1/channels/{kind}/{id}/media/{media_id}`,
   * content's `url`): WhatsApp's media ids need the channel's token; Messenger's URLs are public.
   */
  readonly downloadsMedia: boolean;
  /** The sending account as the provider's notifications name it ("phone_number_id", "page"). */
  readonly webhookAccountName: string;
  /** Reads one stored webhook notification into messages and statuses; never throws. */
  parseNotification(body: unknown): ParsedNotification;
  /** The provider's send call, its limits and its error classification. */
  createTransport(dependencies: ChannelKindDependencies): ChannelTransport;
  /** The API's answer for a channel: response types hold no secret, so none can leak. */
  toResponse(channel: StoredChannel, webhookUrl: string): object;
}

/** One notification of a kind, as the OpenAPI document shows it (from the kind's folder). */
export interface NotificationExample {
  kind: ChannelKind;
  summary: string;
  value: unknown;
}
