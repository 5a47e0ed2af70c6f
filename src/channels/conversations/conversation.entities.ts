import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ChannelKind } from '../channel-transport';
import type {
  IdentitySource,
  MessageContext,
  SenderProfile,
} from '../webhooks/inbound-notification';

/** One message a client wrote to a channel, kept once (unique on channel and Meta's id). */
@Entity({ name: 'channel_messages' })
export class ChannelMessageEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'channel_kind', type: 'text' }) channelKind!: ChannelKind;
  @Column({ name: 'channel_id', type: 'uuid' }) channelId!: string;
  /** E.164 phone (WhatsApp) or page-scoped id (Messenger); null when Meta withholds the phone. */
  @Column({ type: 'text', nullable: true }) sender!: string | null;
  /** WhatsApp's business-scoped user id (BSUID), when Meta gives one. */
  @Column({ name: 'sender_user_id', type: 'text', nullable: true }) senderUserId!: string | null;
  @Column({ type: 'jsonb', nullable: true }) profile!: SenderProfile | null;
  @Column({ name: 'message_id', type: 'text' }) messageId!: string;
  /** Meta's type: text, image, audio, video, document, sticker, location, reaction, interactive... */
  @Column({ type: 'text' }) type!: string;
  /** The text, caption or title; null for media without one. */
  @Column({ type: 'text', nullable: true }) text!: string | null;
  /** What the message holds, shaped by type; null for plain text. */
  @Column({ type: 'jsonb', nullable: true }) content!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) context!: MessageContext | null;
  @Column({ type: 'jsonb', nullable: true }) referral!: Record<string, unknown> | null;
  /** The message element exactly as Meta sent it. */
  @Column({ type: 'jsonb', nullable: true }) raw!: unknown;
  /** Whether it started the 24-hour customer service window. */
  @Column({ name: 'opens_window', type: 'boolean' }) opensWindow!: boolean;
  @Column({ name: 'received_at', type: 'timestamptz' }) receivedAt!: Date;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}

export const OPT_OUT_SOURCES = ['keyword', 'api'] as const;
export type OptOutSource = (typeof OPT_OUT_SOURCES)[number];

/** A recipient who asked this channel not to write to them (STOP, or the API). */
@Entity({ name: 'channel_opt_outs' })
export class ChannelOptOutEntity {
  @PrimaryColumn({ name: 'channel_id', type: 'uuid' }) channelId!: string;
  @PrimaryColumn({ type: 'text' }) recipient!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ type: 'text' }) source!: OptOutSource;
  @Column({ name: 'opted_out_at', type: 'timestamptz' }) optedOutAt!: Date;
}

/**
 * A person who told Meta to stop marketing messages from this business (a 131050 `failed` status,
 * or a `user_preferences` notification): MARKETING templates to them are skipped, nothing else.
 * Meta's "resume" removes it. Apart from channel_opt_outs, which stop every message.
 */
@Entity({ name: 'channel_marketing_opt_outs' })
export class ChannelMarketingOptOutEntity {
  @PrimaryColumn({ name: 'channel_id', type: 'uuid' }) channelId!: string;
  @PrimaryColumn({ type: 'text' }) recipient!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ type: 'text' }) source!: 'meta';
  @Column({ name: 'opted_out_at', type: 'timestamptz' }) optedOutAt!: Date;
}

/**
 * Two forms of one person on a channel (a phone and its BSUID, the `wa_id` of a number dialled in
 * another form, a previous and a current BSUID), stored both ways.
 */
@Entity({ name: 'channel_identities' })
export class ChannelIdentityEntity {
  @PrimaryColumn({ name: 'channel_id', type: 'uuid' }) channelId!: string;
  @PrimaryColumn({ type: 'text' }) form!: string;
  @PrimaryColumn({ type: 'text' }) other!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ type: 'text' }) source!: IdentitySource;
  @Column({ name: 'learned_at', type: 'timestamptz' }) learnedAt!: Date;
}
