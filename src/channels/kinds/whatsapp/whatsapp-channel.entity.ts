import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const CHANNEL_STATUSES = ['active', 'inactive'] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

/**
 * A WhatsApp Cloud API phone number (`number_id`) bound to an agent. A number belongs to one live
 * channel across organizations (issue 17): whoever binds it reads what Meta sends for it.
 */
@Entity({ name: 'whatsapp_channels' })
@Index('whatsapp_channels_number_key', ['numberId'], { unique: true, where: 'deleted_at IS NULL' })
@Index('whatsapp_channels_org_agent_idx', ['organizationId', 'agentId'])
export class WhatsappChannelEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'agent_id', type: 'text' }) agentId!: string;
  @Column({ name: 'number_id', type: 'text' }) numberId!: string;
  @Column({ name: 'access_token_encrypted', type: 'text' }) accessTokenEncrypted!: string;
  /** The Meta app secret that alone verifies this channel's webhooks; null: META_APP_SECRET's. */
  @Column({ name: 'app_secret_encrypted', type: 'text', nullable: true })
  appSecretEncrypted!: string | null;
  @Column({ type: 'text' }) status!: ChannelStatus;
  @Column({ name: 'verification_token', type: 'text', unique: true }) verificationToken!: string;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
  /** Why Meta made it inactive (its error code and message); null while active. */
  @Column({ name: 'status_reason_code', type: 'text', nullable: true })
  statusReasonCode!: string | null;
  @Column({ name: 'status_reason_message', type: 'text', nullable: true })
  statusReasonMessage!: string | null;
  /** The WhatsApp Business Account (WABA) whose template catalog agentline keeps; null: none. */
  @Column({ name: 'business_account_id', type: 'text', nullable: true })
  businessAccountId!: string | null;
  /** When the template catalog was last synced; null: never (templates go as given). */
  @Column({ name: 'templates_synced_at', type: 'timestamptz', nullable: true })
  templatesSyncedAt!: Date | null;
  /** Why the last sync failed (kept until one succeeds), and when. */
  @Column({ name: 'templates_sync_error', type: 'text', nullable: true })
  templatesSyncError!: string | null;
  @Column({ name: 'templates_sync_failed_at', type: 'timestamptz', nullable: true })
  templatesSyncFailedAt!: Date | null;
  /** A sync was asked for (create, modify, on demand, a template webhook) and has not started. */
  @Column({ name: 'templates_sync_requested_at', type: 'timestamptz', nullable: true })
  templatesSyncRequestedAt!: Date | null;
  /** A replica is syncing until then (one at a time; a crashed one's lease runs out). */
  @Column({ name: 'templates_sync_lease_until', type: 'timestamptz', nullable: true })
  templatesSyncLeaseUntil!: Date | null;
  /** Removed (DELETE): kept for what points at it, invisible to the API and to sending. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true }) deletedAt!: Date | null;
}
