import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A Facebook Messenger page (`user_id`) bound to an agent; "Messanger" is the spec's spelling. */
@Entity({ name: 'messanger_channels' })
@Index('messanger_channels_org_agent_idx', ['organizationId', 'agentId'])
export class MessangerChannelEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'agent_id', type: 'text' }) agentId!: string;
  @Column({ name: 'user_id', type: 'text' }) userId!: string;
  @Column({ name: 'access_token_encrypted', type: 'text' }) accessTokenEncrypted!: string;
  @Column({ name: 'verification_token', type: 'text', unique: true }) verificationToken!: string;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
