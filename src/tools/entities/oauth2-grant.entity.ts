import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';

export const OAUTH2_GRANT_STATUSES = ['active', 'failed'] as const;
export type OAuth2GrantStatus = (typeof OAUTH2_GRANT_STATUSES)[number];

/** Scopes are stored space-separated: RFC 6749 scope tokens cannot contain spaces. */
export const scopeListTransformer = {
  to: (scopes: string[]): string => scopes.join(' '),
  from: (value: string): string[] => value.split(' ').filter(Boolean),
};

/**
 * What an agent of an organization holds from one OAuth2 provider: one row per
 * (organization, agent, provider), shared by all the agent's tools on that provider. Tokens are
 * sealed with the SecretBox, bound to this row's key (see oauth2-grants.service.ts).
 */
@Entity({ name: 'oauth2_grants' })
@Unique('oauth2_grants_owner_key', ['organizationId', 'agentId', 'providerId'])
export class OAuth2GrantEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'agent_id', type: 'text' }) agentId!: string;
  @Column({ name: 'provider_id', type: 'text' }) providerId!: string;
  @Column({ type: 'text' }) status!: OAuth2GrantStatus;
  /** What the provider granted (its token response's `scope`, else what was requested). */
  @Column({ type: 'text', transformer: scopeListTransformer }) scopes!: string[];
  /** Null once the grant failed: nothing usable is kept. */
  @Column({ name: 'access_token_encrypted', type: 'text', nullable: true })
  accessTokenEncrypted!: string | null;
  @Column({ name: 'refresh_token_encrypted', type: 'text', nullable: true })
  refreshTokenEncrypted!: string | null;
  @Column({ name: 'token_type', type: 'text', nullable: true }) tokenType!: string | null;
  /** When the access token expires; null when the provider gave no lifetime. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true }) expiresAt!: Date | null;
  @Column({ name: 'failure_reason', type: 'text', nullable: true }) failureReason!: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
