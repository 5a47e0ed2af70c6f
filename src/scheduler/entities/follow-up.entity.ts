import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { MessageTemplate } from '../../channels';

export const FOLLOW_UP_STATUSES = ['active', 'paused', 'completed'] as const;
export type FollowUpStatus = (typeof FOLLOW_UP_STATUSES)[number];

/**
 * A WhatsApp template: its name, language code, body parameters, header and buttons (filled like
 * the prompt), as the channels module stores a template.
 */
export type FollowUpTemplate = MessageTemplate;

/** A recurring WhatsApp message from an agent to a list of clients. */
@Entity({ name: 'follow_ups' })
@Index('follow_ups_org_agent_idx', ['organizationId', 'agentId'])
@Index('follow_ups_org_channel_idx', ['organizationId', 'channelId'])
export class FollowUpEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'agent_id', type: 'text' }) agentId!: string;
  @Column({ name: 'channel_id', type: 'uuid' }) channelId!: string;
  /** The channel kind's `type` ("Whatsapp"). */
  @Column({ name: 'channel_type', type: 'text' }) channelType!: string;
  /** Its channel's kind (`whatsapp`), which its deliveries are queued with. */
  @Column({ name: 'channel_kind', type: 'text' }) channelKind!: string;
  @Column({ name: 'client_phone_numbers', type: 'jsonb' }) clientPhoneNumbers!: string[];
  @Column({ type: 'text' }) frequency!: string;
  @Column({ name: 'time_zone', type: 'text' }) timeZone!: string;
  @Column({ type: 'text' }) prompt!: string;
  @Column({ type: 'text' }) title!: string;
  @Column({ type: 'text', nullable: true }) description!: string | null;
  /** Sent instead of text outside the 24-hour customer service window; null: text only. */
  @Column({ type: 'jsonb', nullable: true }) template!: FollowUpTemplate | null;
  @Column({ type: 'text' }) status!: FollowUpStatus;
  /** The instant the frequency was anchored at (creation), for presets and durations. */
  @Column({ name: 'anchor_at', type: 'timestamptz' }) anchorAt!: Date;
  /** Indexed (partial, active only) by the migration: the scheduler's due-scan. */
  @Column({ name: 'next_run_at', type: 'timestamptz', nullable: true }) nextRunAt!: Date | null;
  /** The occurrence most recently turned into deliveries. */
  @Column({ name: 'last_run_at', type: 'timestamptz', nullable: true }) lastRunAt!: Date | null;
  /** Deleted follow-ups keep their deliveries for the record but are invisible to the API. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true }) deletedAt!: Date | null;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
