import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ChannelStatus } from '../whatsapp/whatsapp-channel.entity';

/**
 * A Facebook Messenger page (`user_id`) bound to an agent; "Messanger" is the spec's spelling. A
 * page belongs to one live channel across organizations (issue 17).
 */
@Entity({ name: 'messanger_channels' })
@Index('messanger_channels_user_key', ['userId'], { unique: true, where: 'deleted_at IS NULL' })
@Index('messanger_channels_org_agent_idx', ['organizationId', 'agentId'])
export class MessangerChannelEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'agent_id', type: 'text' }) agentId!: string;
  @Column({ name: 'user_id', type: 'text' }) userId!: string;
  @Column({ name: 'access_token_encrypted', type: 'text' }) accessTokenEncrypted!: string;
  /** The Meta app secret that alone verifies this channel's webhooks; null: META_APP_SECRET's. */
  @Column({ name: 'app_secret_encrypted', type: 'text', nullable: true })
  appSecretEncrypted!: string | null;
  @Column({ name: 'verification_token', type: 'text', unique: true }) verificationToken!: string;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
  @Column({ type: 'text' }) status!: ChannelStatus;
  /** Why Meta made it inactive (its error code and message); null while active. */
  @Column({ name: 'status_reason_code', type: 'text', nullable: true })
  statusReasonCode!: string | null;
  @Column({ name: 'status_reason_message', type: 'text', nullable: true })
  statusReasonMessage!: string | null;
  /** Removed (DELETE): kept for what points at it, invisible to the API and to sending. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true }) deletedAt!: Date | null;
}
