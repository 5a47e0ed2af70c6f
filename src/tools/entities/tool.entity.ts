import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const AUTHORIZATION_STATUSES = ['pending', 'completed', 'failed', 'not_started'] as const;
export type AuthorizationStatus = (typeof AUTHORIZATION_STATUSES)[number];

/** A tool attached to an agent, with its authorization state. */
@Entity({ name: 'tools' })
@Index('tools_org_agent_tool_idx', ['organizationId', 'agentId', 'qualifiedName'])
export class ToolEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'agent_id', type: 'text' }) agentId!: string;
  /** The name as the client sent it (qualified or fully qualified). */
  @Column({ type: 'text' }) name!: string;
  @Column({ name: 'qualified_name', type: 'text' }) qualifiedName!: string;
  @Column({ name: 'toolkit_version', type: 'text' }) toolkitVersion!: string;
  /** The request's `params` as JSON text (any JSON value), so that it is echoed exactly; null when absent. */
  @Column({ name: 'params_json', type: 'text', nullable: true }) paramsJson!: string | null;
  @Column({ name: 'api_key_encrypted', type: 'text', nullable: true }) apiKeyEncrypted!:
    string | null;
  @Column({ name: 'authorization_status', type: 'text' }) authorizationStatus!: AuthorizationStatus;
  @Column({ name: 'oauth2_url', type: 'text', default: '' }) oauth2Url!: string;
  /** Why the authorization failed; null otherwise (other reasons are derived when read). */
  @Column({ name: 'authorization_status_reason', type: 'text', nullable: true })
  authorizationStatusReason!: string | null;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
