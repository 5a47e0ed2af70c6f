import { Column, Entity, PrimaryColumn } from 'typeorm';
import type {
  ChannelKind,
  DeliveryPricing,
  DeliveryStatus,
  MessageType,
  RichMessage,
} from '../../channels';
import type { FollowUpTemplate } from './follow-up.entity';

// The statuses and message types the API answers (channels publish the deliveries it stores).
export { DELIVERY_STATUSES, MESSAGE_TYPES } from '../../channels';
export type { DeliveryStatus, MessageType } from '../../channels';

/**
 * One message to one recipient: of one occurrence of a follow-up (unique on follow_up_id,
 * occurrence_at, phone), or sent now. The outbox row that makes every send happen once and stay
 * accounted for.
 */
@Entity({ name: 'deliveries' })
export class DeliveryEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  /** Null for a message sent now (POST /v1/channels/{kind}/{id}/messages). */
  @Column({ name: 'follow_up_id', type: 'uuid', nullable: true }) followUpId!: string | null;
  @Column({ name: 'channel_id', type: 'uuid' }) channelId!: string;
  @Column({ name: 'channel_kind', type: 'text' }) channelKind!: ChannelKind;
  /** A send now's own message: its text, or its template (a follow-up's come from the follow-up). */
  @Column({ name: 'message_text', type: 'text', nullable: true }) messageText!: string | null;
  @Column({ type: 'jsonb', nullable: true }) template!: FollowUpTemplate | null;
  /** A send now's rich message (its kind's own, e.g. a WhatsApp image), sent again on a retry. */
  @Column({ type: 'jsonb', nullable: true }) content!: RichMessage | null;
  @Column({ name: 'occurrence_at', type: 'timestamptz' }) occurrenceAt!: Date;
  @Column({ type: 'text' }) phone!: string;
  @Column({ type: 'text' }) status!: DeliveryStatus;
  @Column({ type: 'integer' }) attempts!: number;
  @Column({ name: 'next_attempt_at', type: 'timestamptz' }) nextAttemptAt!: Date;
  @Column({ name: 'lease_owner', type: 'text', nullable: true }) leaseOwner!: string | null;
  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;
  @Column({ name: 'last_error_code', type: 'text', nullable: true }) lastErrorCode!: string | null;
  @Column({ name: 'last_error_message', type: 'text', nullable: true }) lastErrorMessage!:
    string | null;
  @Column({ name: 'wa_message_id', type: 'text', nullable: true }) providerMessageId!:
    string | null;
  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true }) sentAt!: Date | null;
  /** From Meta's statuses (webhooks): forward only, sent < delivered < read. */
  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true }) deliveredAt!: Date | null;
  @Column({ name: 'read_at', type: 'timestamptz', nullable: true }) readAt!: Date | null;
  /** Meta's pricing from the last status that carried one (WhatsApp). */
  @Column({ type: 'jsonb', nullable: true }) pricing!: DeliveryPricing | null;
  /** What was (or will be) sent: text inside the 24-hour window, else the template if any. */
  @Column({ name: 'message_type', type: 'text' }) messageType!: MessageType;
  /** Its channel was removed while it was claimed: no call starts, it ends `cancelled`. */
  @Column({ name: 'cancel_requested', type: 'boolean' }) cancelRequested!: boolean;
  /** Meta refused text (131047): the next attempt sends the follow-up's template. */
  @Column({ name: 'template_required', type: 'boolean' }) templateRequired!: boolean;
  /** The process (host:pid:nonce) that sent it; internal, for tracing across replicas. */
  @Column({ name: 'sent_by', type: 'text', nullable: true }) sentBy!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
