import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, Repository } from 'typeorm';
import { DEFAULT_PAGE_SIZE } from '../common/http/pagination.dto';
import { toIso } from '../common/time';
import type { ChannelKind } from './channel-transport';
import { ListChannelsQueryDto } from './channel-fields';
import { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { isUniqueViolation } from '../common/database-errors';
import { ProblemException, notFound, validationFailed } from '../common/http/problem';
import { isUuid, newVerificationToken, uuidv7 } from '../common/ids';
import { insertRow, returnedRows } from '../database/sql';
import {
  CreateMessangerChannelDto,
  UpdateMessangerChannelDto,
} from './kinds/messanger/messanger-channel.dto';
import {
  CreateWhatsappChannelDto,
  UpdateWhatsappChannelDto,
} from './kinds/whatsapp/whatsapp-channel.dto';
import { MessangerChannelEntity } from './kinds/messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './kinds/whatsapp/whatsapp-channel.entity';

/**
 * A Meta id belongs to one live channel across organizations (issue 17). The detail is the same
 * whoever holds it, so it tells nothing about another organization.
 */
const META_ID_KEYS: Record<ChannelKind, { index: string; field: string }> = {
  whatsapp: { index: 'whatsapp_channels_number_key', field: 'number_id' },
  messanger: { index: 'messanger_channels_user_key', field: 'user_id' },
};
export const metaIdInUseDetail = (kind: ChannelKind, metaId: string) =>
  `${META_ID_KEYS[kind].field} ${metaId} is already bound to a channel; it can be bound again once that channel is removed.`;

/** The write, with the unique violation of a Meta id already bound answered `409 conflict`. */
async function bindingMetaId<T>(kind: ChannelKind, metaId: string, write: () => Promise<T>) {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, META_ID_KEYS[kind].index)) {
      throw new ProblemException('conflict', metaIdInUseDetail(kind, metaId));
    }
    throw error;
  }
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
    @InjectRepository(WhatsappChannelEntity)
    private readonly whatsappChannels: Repository<WhatsappChannelEntity>,
    @InjectRepository(MessangerChannelEntity)
    private readonly messangerChannels: Repository<MessangerChannelEntity>,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
  ) {}

  async createWhatsappChannel(
    principal: Principal,
    dto: CreateWhatsappChannelDto,
  ): Promise<WhatsappChannelEntity> {
    const now = new Date(this.clock.now());
    const id = uuidv7(now.getTime());
    const channel = this.whatsappChannels.create({
      id,
      organizationId: principal.organizationId,
      agentId: dto.agent_id,
      numberId: dto.number_id,
      accessTokenEncrypted: this.secrets.encrypt(
        dto.access_token,
        accessTokenAad('whatsapp_channels', id),
      ),
      appSecretEncrypted: this.sealAppSecret('whatsapp', id, dto.app_secret),
      status: 'active',
      statusReasonCode: null,
      statusReasonMessage: null,
      deletedAt: null,
      verificationToken: newVerificationToken(),
      createdBy: principal.subject,
      createdAt: now,
      updatedAt: now,
    });
    await bindingMetaId('whatsapp', dto.number_id, () =>
      insertRow(this.dataSource, 'whatsapp_channels', {
        id,
        organization_id: channel.organizationId,
        agent_id: channel.agentId,
        number_id: channel.numberId,
        access_token_encrypted: channel.accessTokenEncrypted,
        app_secret_encrypted: channel.appSecretEncrypted,
        status: channel.status,
        verification_token: channel.verificationToken,
        created_by: channel.createdBy,
        created_at: now,
        updated_at: now,
      }),
    );
    return channel;
  }

  async updateWhatsappChannel(
    principal: Principal,
    id: string,
    dto: UpdateWhatsappChannelDto,
  ): Promise<WhatsappChannelEntity> {
    if (
      dto.access_token === undefined &&
      dto.number_id === undefined &&
      dto.app_secret === undefined
    ) {
      throw validationFailed([], 'Send access_token, number_id, app_secret, or several of them.');
    }
    const channel = await this.findWhatsappChannel(principal.organizationId, id);
    if (!channel) throw notFound('WhatsApp channel');
    if (dto.number_id !== undefined) channel.numberId = dto.number_id;
    if (dto.app_secret !== undefined) {
      channel.appSecretEncrypted = this.sealAppSecret('whatsapp', channel.id, dto.app_secret);
    }
    if (dto.access_token !== undefined) {
      channel.accessTokenEncrypted = this.secrets.encrypt(
        dto.access_token,
        accessTokenAad('whatsapp_channels', channel.id),
      );
      // A new token is how an operator repairs a channel that Meta stopped accepting.
      channel.status = 'active';
      channel.statusReasonCode = null;
      channel.statusReasonMessage = null;
    }
    channel.updatedAt = new Date(this.clock.now());
    await bindingMetaId('whatsapp', channel.numberId, () =>
      this.whatsappChannels.update(
        { id: channel.id, organizationId: principal.organizationId },
        {
          numberId: channel.numberId,
          accessTokenEncrypted: channel.accessTokenEncrypted,
          appSecretEncrypted: channel.appSecretEncrypted,
          status: channel.status,
          statusReasonCode: channel.statusReasonCode,
          statusReasonMessage: channel.statusReasonMessage,
          updatedAt: channel.updatedAt,
        },
      ),
    );
    return channel;
  }

  /** Sealed to its row like the token; absent stays null (META_APP_SECRET applies). */
  private sealAppSecret(kind: ChannelKind, id: string, secret: string | undefined): string | null {
    return secret === undefined
      ? null
      : this.secrets.encrypt(secret, appSecretAad(`${kind}_channels`, id));
  }

  /** The organization's WhatsApp channel, or null: another organization's id is not found. */
  private async findWhatsappChannel(
    organizationId: string,
    id: string,
  ): Promise<WhatsappChannelEntity | null> {
    if (!isUuid(id)) return null;
    return this.whatsappChannels.findOneBy({ id, organizationId, deletedAt: IsNull() });
  }

  private async findMessangerChannel(
    organizationId: string,
    id: string,
  ): Promise<MessangerChannelEntity | null> {
    if (!isUuid(id)) return null;
    return this.messangerChannels.findOneBy({ id, organizationId, deletedAt: IsNull() });
  }

  async createMessangerChannel(
    principal: Principal,
    dto: CreateMessangerChannelDto,
  ): Promise<MessangerChannelEntity> {
    const now = new Date(this.clock.now());
    const id = uuidv7(now.getTime());
    const channel = this.messangerChannels.create({
      id,
      organizationId: principal.organizationId,
      agentId: dto.agent_id,
      userId: dto.user_id,
      accessTokenEncrypted: this.secrets.encrypt(
        dto.access_token,
        accessTokenAad('messanger_channels', id),
      ),
      appSecretEncrypted: this.sealAppSecret('messanger', id, dto.app_secret),
      status: 'active',
      statusReasonCode: null,
      statusReasonMessage: null,
      deletedAt: null,
      verificationToken: newVerificationToken(),
      createdBy: principal.subject,
      createdAt: now,
      updatedAt: now,
    });
    await bindingMetaId('messanger', dto.user_id, () => this.messangerChannels.insert(channel));
    return channel;
  }

  async updateMessangerChannel(
    principal: Principal,
    id: string,
    dto: UpdateMessangerChannelDto,
  ): Promise<MessangerChannelEntity> {
    const channel = await this.findMessangerChannel(principal.organizationId, id);
    if (!channel) throw notFound('Messanger channel');
    channel.userId = dto.user_id;
    channel.accessTokenEncrypted = this.secrets.encrypt(
      dto.access_token,
      accessTokenAad('messanger_channels', channel.id),
    );
    if (dto.app_secret !== undefined) {
      channel.appSecretEncrypted = this.sealAppSecret('messanger', channel.id, dto.app_secret);
    }
    // A new token is how an operator repairs a channel that Meta stopped accepting.
    channel.status = 'active';
    channel.statusReasonCode = null;
    channel.statusReasonMessage = null;
    channel.updatedAt = new Date(this.clock.now());
    await bindingMetaId('messanger', dto.user_id, () =>
      this.messangerChannels.update(
        { id: channel.id, organizationId: principal.organizationId },
        {
          userId: channel.userId,
          accessTokenEncrypted: channel.accessTokenEncrypted,
          appSecretEncrypted: channel.appSecretEncrypted,
          status: channel.status,
          statusReasonCode: null,
          statusReasonMessage: null,
          updatedAt: channel.updatedAt,
        },
      ),
    );
    return channel;
  }

  async getWhatsappChannel(principal: Principal, id: string): Promise<WhatsappChannelEntity> {
    const channel = await this.findWhatsappChannel(principal.organizationId, id);
    if (!channel) throw notFound('WhatsApp channel');
    return channel;
  }

  async getMessangerChannel(principal: Principal, id: string): Promise<MessangerChannelEntity> {
    const channel = await this.findMessangerChannel(principal.organizationId, id);
    if (!channel) throw notFound('Messanger channel');
    return channel;
  }

  /** Newest first; removed channels are not listed. */
  async listWhatsappChannels(principal: Principal, query: ListChannelsQueryDto) {
    const [items, total] = await this.whatsappChannels.findAndCount({
      where: { ...this.listFilter(principal, query) },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: query.offset ?? 0,
      take: query.limit ?? DEFAULT_PAGE_SIZE,
    });
    return { items, offset: query.offset ?? 0, total_count: total };
  }

  async listMessangerChannels(principal: Principal, query: ListChannelsQueryDto) {
    const [items, total] = await this.messangerChannels.findAndCount({
      where: { ...this.listFilter(principal, query) },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: query.offset ?? 0,
      take: query.limit ?? DEFAULT_PAGE_SIZE,
    });
    return { items, offset: query.offset ?? 0, total_count: total };
  }

  private listFilter(principal: Principal, query: ListChannelsQueryDto) {
    return {
      organizationId: principal.organizationId,
      deletedAt: IsNull(),
      ...(query.agent_id !== undefined && { agentId: query.agent_id }),
    };
  }

  /**
   * Runs in the transaction that removes a channel: the scheduler cancels its pending deliveries
   * and stops its follow-ups atomically with the removal.
   */
  onRemoved(listener: ChannelRemovalListener): void {
    this.removalListeners.push(listener);
  }

  /** Kept with `deleted_at` (what points at it still makes sense); gone for the API and sending. */
  async removeChannel(principal: Principal, kind: ChannelKind, id: string): Promise<void> {
    const at = this.clock.now();
    const removed = await this.dataSource.transaction(async (db) => {
      const rows = isUuid(id)
        ? returnedRows<{ id: string }>(
            await db.query(
              `UPDATE ${kind}_channels SET deleted_at = $3, updated_at = $3
                WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL RETURNING id`,
              [id, principal.organizationId, toIso(at)],
            ),
          )
        : [];
      if (rows.length === 0) return false;
      const removal = { kind, channelId: id, organizationId: principal.organizationId, at };
      for (const listener of this.removalListeners) await listener(db, removal);
      return true;
    });
    if (!removed) throw notFound(kind === 'whatsapp' ? 'WhatsApp channel' : 'Messanger channel');
  }

  /** The agent of each channel (removed ones included), for events about their messages. */
  async agentsOf(db: EntityManager, channelIds: readonly string[]): Promise<Map<string, string>> {
    if (channelIds.length === 0) return new Map();
    const rows = (await db.query(
      `SELECT id, agent_id FROM whatsapp_channels WHERE id IN (SELECT unnest($1::uuid[]))
       UNION ALL
       SELECT id, agent_id FROM messanger_channels WHERE id IN (SELECT unnest($1::uuid[]))`,
      [channelIds],
    )) as { id: string; agent_id: string }[];
    return new Map(rows.map((row) => [row.id, row.agent_id]));
  }
}
