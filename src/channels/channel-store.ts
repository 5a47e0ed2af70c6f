import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../common/ids';
import { ShortLivedCache } from '../common/short-lived-cache';
import { toIso } from '../common/time';
import { insertRow, returnedRows } from '../database/sql';
import type { ChannelKind } from './channel-transport';
import type { ChannelKindDescriptor, StoredChannel } from './kinds/channel-kind';
import { ChannelKinds } from './kinds/channel-kinds';

interface ChannelRow {
  id: string;
  organization_id: string;
  agent_id: string;
  sender_id: string;
  access_token_encrypted: string;
  app_secret_encrypted: string | null;
  status: 'active' | 'inactive';
  status_reason_code: string | null;
  status_reason_message: string | null;
  verification_token: string;
  created_by: string;
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
  [ownColumn: string]: unknown;
}

/** What a read returns of a channel row: the columns every kind has, then the kind's own. */
const columnsOf = ({ senderIdColumn, ownColumns = [] }: ChannelKindDescriptor) =>
  [
    `id, organization_id, agent_id, ${senderIdColumn} AS sender_id, access_token_encrypted,
     app_secret_encrypted, status, status_reason_code, status_reason_message,
     verification_token, created_by, created_at, updated_at, deleted_at`,
    ...ownColumns,
  ].join(', ');

const selectFrom = (descriptor: ChannelKindDescriptor) =>
  `SELECT ${columnsOf(descriptor)} FROM ${descriptor.table}`;

/** The kind's own columns of a write, refused when the descriptor does not name them. */
function ownValues(
  { ownColumns = [], kind }: ChannelKindDescriptor,
  own: Record<string, unknown> | undefined,
): [string, unknown][] {
  const entries = Object.entries(own ?? {}).filter(([, value]) => value !== undefined);
  for (const [column] of entries) {
    if (!ownColumns.includes(column)) throw new Error(`${kind} channels have no column ${column}`);
  }
  return entries;
}

const toStored = (
  { kind, ownColumns = [] }: ChannelKindDescriptor,
  row: ChannelRow,
): StoredChannel => ({
  kind,
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  senderId: row.sender_id,
  accessTokenEncrypted: row.access_token_encrypted,
  appSecretEncrypted: row.app_secret_encrypted,
  status: row.status,
  statusReasonCode: row.status_reason_code,
  statusReasonMessage: row.status_reason_message,
  verificationToken: row.verification_token,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
  deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at),
  own: Object.fromEntries(ownColumns.map((column) => [column, row[column]])),
});

/** What a write may change of a channel (every kind stores the same columns). */
export type ChannelChanges = Partial<
  Pick<
    StoredChannel,
    | 'senderId'
    | 'accessTokenEncrypted'
    | 'appSecretEncrypted'
    | 'status'
    | 'statusReasonCode'
    | 'statusReasonMessage'
  >
> & {
  updatedAt: Date;
  /** The kind's own columns to write, by column name (see ChannelKindDescriptor.ownColumns). */
  own?: Record<string, unknown>;
};

const COLUMNS_OF_CHANGES: Record<Exclude<keyof ChannelChanges, 'senderId' | 'own'>, string> = {
  accessTokenEncrypted: 'access_token_encrypted',
  appSecretEncrypted: 'app_secret_encrypted',
  status: 'status',
  statusReasonCode: 'status_reason_code',
  statusReasonMessage: 'status_reason_message',
  updatedAt: 'updated_at',
};

/**
 * The channel tables, whatever the kind: each kind's table has the same columns but the sender
 * id's (the descriptor names it), so one set of statements serves them all. Every read by id is
 * scoped by organization except the webhooks' (public routes), which have their own lookup.
 */
/** More channels on one business account than a stand-in's token check needs to look at. */
const MAX_ON_BUSINESS_ACCOUNT = 100;

/**
 * How long the webhook routes keep a channel they found (docs/webhooks.md): a write by this
 * process applies at once, another replica's within this time.
 */
export const WEBHOOK_CHANNEL_CACHE_MS = 1_000;

@Injectable()
export class ChannelStore {
  /** The channels Meta's webhook routes found lately: one read per channel and second. */
  private readonly webhookChannels = new ShortLivedCache<StoredChannel>(
    WEBHOOK_CHANNEL_CACHE_MS,
    10_000,
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly kinds: ChannelKinds,
  ) {}

  /** The organization's live channel of this kind, or undefined (another organization's too). */
  findOne(
    kind: ChannelKind,
    organizationId: string,
    id: string,
    db: EntityManager = this.dataSource.manager,
  ): Promise<StoredChannel | undefined> {
    if (!isUuid(id)) return Promise.resolve(undefined);
    return this.selectOne(db, kind, 'id = $1 AND organization_id = $2', [id, organizationId]);
  }

  /**
   * The live channel of this kind with this id, in whatever organization: for the webhooks'
   * public routes only, where the id in the URL and the provider's signature are all there is.
   */
  findForWebhook(
    kind: ChannelKind,
    id: string,
    db?: EntityManager,
  ): Promise<StoredChannel | undefined> {
    if (!isUuid(id)) return Promise.resolve(undefined);
    if (db) return this.selectOne(db, kind, 'id = $1', [id]);
    return this.webhookChannels.find(`${kind}:${id}`, () =>
      this.selectOne(this.dataSource.manager, kind, 'id = $1', [id]),
    );
  }

  /** The organization's oldest live channel of this kind bound to the provider's account. */
  findBySenderId(
    db: EntityManager,
    kind: ChannelKind,
    organizationId: string,
    senderId: string,
  ): Promise<StoredChannel | undefined> {
    const column = this.kinds.get(kind).senderIdColumn;
    return this.selectOne(db, kind, `organization_id = $1 AND ${column} = $2`, [
      organizationId,
      senderId,
    ]);
  }

  /**
   * The live channel of this kind bound to the provider's account, in whatever organization (a
   * sender id belongs to one live channel: issue 17): for the sandbox's stand-in for Meta, which
   * knows the account and the token only, as Meta does.
   */
  findLiveBySenderId(kind: ChannelKind, senderId: string): Promise<StoredChannel | undefined> {
    const column = this.kinds.get(kind).senderIdColumn;
    return this.selectOne(this.dataSource.manager, kind, `${column} = $1`, [senderId]);
  }

  /**
   * The live WhatsApp channels on a business account, in whatever organization, oldest first: for
   * the sandbox's stand-in, which lists templates to a token of one of them only.
   */
  async findLiveByBusinessAccount(businessAccountId: string): Promise<StoredChannel[]> {
    const kind = this.kinds.get('whatsapp');
    const rows = (await this.dataSource.manager.query(
      `${selectFrom(kind)} WHERE business_account_id = $1 AND deleted_at IS NULL
        ORDER BY created_at LIMIT ${MAX_ON_BUSINESS_ACCOUNT}`,
      [businessAccountId],
    )) as ChannelRow[];
    return rows.map((row) => toStored(kind, row));
  }

  private async selectOne(
    db: EntityManager,
    kind: ChannelKind,
    where: string,
    parameters: unknown[],
  ): Promise<StoredChannel | undefined> {
    const [row] = (await db.query(
      `${selectFrom(this.kinds.get(kind))} WHERE ${where} AND deleted_at IS NULL
        ORDER BY created_at LIMIT 1`,
      parameters,
    )) as ChannelRow[];
    return row ? toStored(this.kinds.get(kind), row) : undefined;
  }

  /** The organization's live channel with this id, whatever its kind. */
  async findAnyKind(organizationId: string, id: string): Promise<StoredChannel | undefined> {
    for (const { kind } of this.kinds.all()) {
      const channel = await this.findOne(kind, organizationId, id);
      if (channel) return channel;
    }
    return undefined;
  }

  /**
   * Live channels with these ids, of these kinds (one query per kind), any organization. A kind
   * this process does not run (rolled back, or a test's) finds nothing: only its deliveries fail.
   */
  async findMany(
    kinds: ReadonlySet<ChannelKind>,
    ids: readonly string[],
  ): Promise<StoredChannel[]> {
    const uuids = [...new Set(ids)].filter(isUuid);
    if (uuids.length === 0) return [];
    const found: StoredChannel[] = [];
    for (const kind of kinds) {
      const descriptor = this.kinds.find(kind);
      if (!descriptor) continue;
      const rows = (await this.dataSource.query(
        `${selectFrom(descriptor)}
          WHERE id IN (SELECT unnest($1::uuid[])) AND deleted_at IS NULL`,
        [uuids],
      )) as ChannelRow[];
      found.push(...rows.map((row) => toStored(descriptor, row)));
    }
    return found;
  }

  /** Newest first; removed channels are not listed. */
  async list(
    kind: ChannelKind,
    organizationId: string,
    { agentId, offset, limit }: { agentId?: string; offset: number; limit: number },
  ): Promise<{ items: StoredChannel[]; total: number }> {
    const descriptor = this.kinds.get(kind);
    const where = `organization_id = $1 AND deleted_at IS NULL
                   AND ($2::text IS NULL OR agent_id = $2)`;
    const [rows, [count]] = await Promise.all([
      this.dataSource.query(
        `${selectFrom(descriptor)} WHERE ${where}
          ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`,
        [organizationId, agentId ?? null, offset, limit],
      ) as Promise<ChannelRow[]>,
      this.dataSource.query(`SELECT count(*) AS total FROM ${descriptor.table} WHERE ${where}`, [
        organizationId,
        agentId ?? null,
      ]) as Promise<{ total: string | number }[]>,
    ]);
    return { items: rows.map((row) => toStored(descriptor, row)), total: Number(count.total) };
  }

  async insert(channel: StoredChannel): Promise<void> {
    const descriptor = this.kinds.get(channel.kind);
    await insertRow(this.dataSource, descriptor.table, {
      id: channel.id,
      organization_id: channel.organizationId,
      agent_id: channel.agentId,
      [descriptor.senderIdColumn]: channel.senderId,
      access_token_encrypted: channel.accessTokenEncrypted,
      app_secret_encrypted: channel.appSecretEncrypted,
      status: channel.status,
      verification_token: channel.verificationToken,
      created_by: channel.createdBy,
      created_at: channel.createdAt,
      updated_at: channel.updatedAt,
      ...Object.fromEntries(ownValues(descriptor, channel.own)),
    });
  }

  /** Writes the changes to the organization's live channel; false when there is none. */
  async update(
    kind: ChannelKind,
    organizationId: string,
    id: string,
    changes: ChannelChanges,
  ): Promise<boolean> {
    const descriptor = this.kinds.get(kind);
    const assignments: string[] = [];
    const values: unknown[] = [id, organizationId];
    const { own, ...common } = changes;
    for (const [column, value] of ownValues(descriptor, own)) {
      values.push(value instanceof Date ? toIso(value.getTime()) : value);
      assignments.push(`${column} = $${values.length}`);
    }
    for (const [field, value] of Object.entries(common) as [
      Exclude<keyof ChannelChanges, 'own'>,
      unknown,
    ][]) {
      if (value === undefined) continue;
      const column = field === 'senderId' ? descriptor.senderIdColumn : COLUMNS_OF_CHANGES[field];
      values.push(value instanceof Date ? toIso(value.getTime()) : value);
      assignments.push(`${column} = $${values.length}`);
    }
    const updated = returnedRows<{ id: string }>(
      await this.dataSource.query(
        `UPDATE ${descriptor.table} SET ${assignments.join(', ')}
          WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL RETURNING id`,
        values,
      ),
    );
    // After the write: a look-up started before it (and kept) is dropped too.
    this.webhookChannels.forget(`${kind}:${id}`);
    return updated.length > 0;
  }

  /**
   * Once a removal (markRemoved) has committed: the webhook routes of this process read the
   * channel again (forgotten before the commit, a request in between would keep the live row).
   */
  forgetForWebhooks(kind: ChannelKind, id: string): void {
    this.webhookChannels.forget(`${kind}:${id}`);
  }

  /** Marks it removed (in the caller's transaction); false when it was not live. */
  async markRemoved(
    db: EntityManager,
    kind: ChannelKind,
    organizationId: string,
    id: string,
    at: number,
  ): Promise<boolean> {
    if (!isUuid(id)) return false;
    const removed = returnedRows<{ id: string }>(
      await db.query(
        `UPDATE ${this.kinds.get(kind).table} SET deleted_at = $3, updated_at = $3
          WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL RETURNING id`,
        [id, organizationId, toIso(at)],
      ),
    );
    return removed.length > 0;
  }

  /**
   * Inactive, with the provider's reason, only while it is active and `sealedToken` is still its
   * token (a PUT with a new token meanwhile wins); in the caller's transaction.
   */
  async deactivate(
    db: EntityManager,
    channel: StoredChannel,
    reason: { code: string; message: string },
    at: number,
  ): Promise<StoredChannel | undefined> {
    const descriptor = this.kinds.get(channel.kind);
    const [row] = returnedRows<ChannelRow>(
      await db.query(
        `UPDATE ${descriptor.table}
            SET status = 'inactive', status_reason_code = $4, status_reason_message = $5,
                updated_at = $3
          WHERE id = $1 AND status = 'active' AND access_token_encrypted = $2
            AND deleted_at IS NULL
      RETURNING ${columnsOf(descriptor)}`,
        [channel.id, channel.accessTokenEncrypted, toIso(at), reason.code, reason.message],
      ),
    );
    return row ? toStored(descriptor, row) : undefined;
  }

  /** The agent of each channel (removed ones included), whatever its kind. */
  async agentsOf(db: EntityManager, channelIds: readonly string[]): Promise<Map<string, string>> {
    if (channelIds.length === 0) return new Map();
    const rows = (await db.query(
      this.kinds
        .all()
        .map(
          ({ table }) =>
            `SELECT id, agent_id FROM ${table} WHERE id IN (SELECT unnest($1::uuid[]))`,
        )
        .join(' UNION ALL '),
      [channelIds],
    )) as { id: string; agent_id: string }[];
    return new Map(rows.map((row) => [row.id, row.agent_id]));
  }
}
