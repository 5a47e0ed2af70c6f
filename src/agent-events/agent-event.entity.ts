import { Column, Entity, PrimaryColumn } from 'typeorm';

export const AGENT_EVENT_TYPES = [
  'message.received',
  'delivery.updated',
  'channel.deactivated',
  'channel.error',
  'channel.templates_sync_failed',
] as const;
export type AgentEventType = (typeof AGENT_EVENT_TYPES)[number];

/** One event for the agent's endpoint: the outbox row that makes it arrive at least once. */
@Entity({ name: 'agent_events' })
export class AgentEventEntity {
  /** Also the Standard Webhooks `webhook-id` (`msg_` + id), the same on every retry. */
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ type: 'text' }) type!: AgentEventType;
  /** The JSON body as it is POSTed: `{ type, organization_id, agent_id, channel_id, data }`. */
  @Column({ type: 'jsonb' }) payload!: Record<string, unknown>;
  @Column({ type: 'integer' }) attempts!: number;
  @Column({ name: 'next_attempt_at', type: 'timestamptz' }) nextAttemptAt!: Date;
  @Column({ name: 'lease_owner', type: 'text', nullable: true }) leaseOwner!: string | null;
  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;
  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true }) deliveredAt!: Date | null;
  /** Given up (AGENT_EVENTS_MAX_AGE_MS passed without a 2xx); last_error says why. */
  @Column({ name: 'failed_at', type: 'timestamptz', nullable: true }) failedAt!: Date | null;
  @Column({ name: 'last_error', type: 'text', nullable: true }) lastError!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
