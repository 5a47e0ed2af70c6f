import { Column, Entity, PrimaryColumn } from 'typeorm';
import { scopeListTransformer } from './oauth2-grant.entity';

/**
 * One authorization in flight: created with an oauth2_url, deleted by the callback that uses it
 * (a DELETE ... RETURNING, so two callbacks with the same state cannot both win). It holds the
 * PKCE verifier, sealed, so that the verifier never travels in a URL.
 */
@Entity({ name: 'oauth2_states' })
export class OAuth2StateEntity {
  @PrimaryColumn({ type: 'text' }) nonce!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'agent_id', type: 'text' }) agentId!: string;
  @Column({ name: 'provider_id', type: 'text' }) providerId!: string;
  @Column({ name: 'tool_id', type: 'uuid' }) toolId!: string;
  /** The scopes requested from the provider. */
  @Column({ type: 'text', transformer: scopeListTransformer }) scopes!: string[];
  @Column({ name: 'code_verifier_encrypted', type: 'text' }) codeVerifierEncrypted!: string;
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt!: Date;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
