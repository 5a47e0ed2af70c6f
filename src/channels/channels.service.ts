import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DEFAULT_PAGE_SIZE } from '../common/http/pagination.dto';
import type { ChannelKind } from './channel-transport';
import { ListChannelsQueryDto } from './channel-fields';
import { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { isUniqueViolation } from '../common/database-errors';
import { ProblemException, notFound } from '../common/http/problem';
import { newVerificationToken, uuidv7 } from '../common/ids';
import { ChannelChanges, ChannelStore } from './channel-store';
import type { ChannelKindDescriptor, StoredChannel } from './kinds/channel-kind';
import { ChannelKinds } from './kinds/channel-kinds';

/**
 * A provider account id belongs to one live channel across organizations (issue 17). The detail
 * is the same whoever holds it, so it tells nothing about another organization.
 */
export const senderIdInUseDetail = (
  { senderIdColumn }: Pick<ChannelKindDescriptor, 'senderIdColumn'>,
  senderId: string,
) =>
  `${senderIdColumn} ${senderId} is already bound to a channel; it can be bound again once that channel is removed.`;

/** What creating a channel takes, whatever the kind (its DTO says it in its own field names). */
export interface NewChannel {
  agentId: string;
  senderId: string;
  accessToken: string;
  appSecret?: string;
  /** The kind's own columns, by column name (see ChannelKindDescriptor.ownColumns). */
  own?: Record<string, unknown>;
}

/** What a PUT may change; a new access token reactivates the channel. */
export interface ChannelUpdate {
  senderId?: string;
  accessToken?: string;
  appSecret?: string;
  own?: Record<string, unknown>;
}

/** A channel was removed (DELETE), inside the transaction that did it. */
export interface ChannelRemoval {
  kind: ChannelKind;
  channelId: string;
  organizationId: string;
  at: number;
}
export type ChannelRemovalListener = (db: EntityManager, removal: ChannelRemoval) => Promise<void>;

/** The associated data that binds an encrypted token to its row and column. */
export const accessTokenAad = (table: string, id: string) => `${table}:${id}:access_token`;
export const appSecretAad = (table: string, id: string) => `${table}:${id}:app_secret`;

@Injectable()
export class ChannelsService {
  private readonly removalListeners: ChannelRemovalListener[] = [];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: ChannelStore,
    private readonly kinds: ChannelKinds,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
  ) {}

  async create(kind: ChannelKind, principal: Principal, input: NewChannel): Promise<StoredChannel> {
    const descriptor = this.kinds.get(kind);
    const now = new Date(this.clock.now());
    const id = uuidv7(now.getTime());
    const channel: StoredChannel = {
      kind,
      id,
      organizationId: principal.organizationId,
      agentId: input.agentId,
      senderId: input.senderId,
      accessTokenEncrypted: this.secrets.encrypt(
        input.accessToken,
        accessTokenAad(descriptor.table, id),
      ),
      appSecretEncrypted: this.sealAppSecret(descriptor, id, input.appSecret),
      status: 'active',
      statusReasonCode: null,
      statusReasonMessage: null,
      verificationToken: newVerificationToken(),
      createdBy: principal.subject,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
      own: input.own ?? {},
    };
    await this.bindingSenderId(descriptor, input.senderId, () => this.store.insert(channel));
    return channel;
  }

  async update(
    kind: ChannelKind,
    principal: Principal,
    id: string,
    update: ChannelUpdate,
  ): Promise<StoredChannel> {
    const descriptor = this.kinds.get(kind);
    const channel = await this.get(kind, principal, id);
    const changes: ChannelChanges = { updatedAt: new Date(this.clock.now()) };
    if (update.senderId !== undefined) changes.senderId = update.senderId;
    if (update.own !== undefined) changes.own = update.own;
    if (update.appSecret !== undefined) {
      changes.appSecretEncrypted = this.sealAppSecret(descriptor, id, update.appSecret);
    }
    if (update.accessToken !== undefined) {
      changes.accessTokenEncrypted = this.secrets.encrypt(
        update.accessToken,
        accessTokenAad(descriptor.table, id),
      );
      // A new token is how an operator repairs a channel that the provider stopped accepting.
      changes.status = 'active';
      changes.statusReasonCode = null;
      changes.statusReasonMessage = null;
    }
    const updated = await this.bindingSenderId(
      descriptor,
      changes.senderId ?? channel.senderId,
      () => this.store.update(kind, principal.organizationId, id, changes),
    );
    if (!updated) throw notFound(`${descriptor.label} channel`);
    return { ...channel, ...changes, own: { ...channel.own, ...changes.own } };
  }

  /** The organization's channel of this kind; another organization's id is not found. */
  async get(kind: ChannelKind, principal: Principal, id: string): Promise<StoredChannel> {
    const channel = await this.store.findOne(kind, principal.organizationId, id);
    if (!channel) throw notFound(`${this.kinds.get(kind).label} channel`);
    return channel;
  }

  /** Newest first; removed channels are not listed. */
  async list(kind: ChannelKind, principal: Principal, query: ListChannelsQueryDto) {
    const offset = query.offset ?? 0;
    const { items, total } = await this.store.list(kind, principal.organizationId, {
      agentId: query.agent_id,
      offset,
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
    });
    return { items, offset, total_count: total };
  }

  /**
   * Runs in the transaction that removes a channel: the scheduler cancels its pending deliveries
   * and stops its follow-ups atomically with the removal.
   */
  onRemoved(listener: ChannelRemovalListener): void {
    this.removalListeners.push(listener);
  }

  /** Kept with `deleted_at` (what points at it still makes sense); gone for the API and sending. */
  async remove(kind: ChannelKind, principal: Principal, id: string): Promise<void> {
    const at = this.clock.now();
    const removed = await this.dataSource.transaction(async (db) => {
      if (!(await this.store.markRemoved(db, kind, principal.organizationId, id, at))) return false;
      const removal = { kind, channelId: id, organizationId: principal.organizationId, at };
      for (const listener of this.removalListeners) await listener(db, removal);
      return true;
    });
    if (!removed) throw notFound(`${this.kinds.get(kind).label} channel`);
    this.store.forgetForWebhooks(kind, id);
  }

  /** The agent of each channel (removed ones included), for events about their messages. */
  agentsOf(db: EntityManager, channelIds: readonly string[]): Promise<Map<string, string>> {
    return this.store.agentsOf(db, channelIds);
  }

  /** Sealed to its row like the token; absent stays null (the global webhook secrets apply). */
  private sealAppSecret(
    descriptor: ChannelKindDescriptor,
    id: string,
    secret: string | undefined,
  ): string | null {
    return secret === undefined
      ? null
      : this.secrets.encrypt(secret, appSecretAad(descriptor.table, id));
  }

  /** The write, with the unique violation of a sender id already bound answered `409 conflict`. */
  private async bindingSenderId<T>(
    descriptor: ChannelKindDescriptor,
    senderId: string,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error, descriptor.senderIdUniqueIndex)) {
        throw new ProblemException('conflict', senderIdInUseDetail(descriptor, senderId));
      }
      throw error;
    }
  }
}
