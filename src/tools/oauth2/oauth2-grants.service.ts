import { Metrics } from '../../metrics';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { Clock } from '../../common/clock';
import { SecretBox } from '../../common/crypto/secret-box';
import { uuidv7 } from '../../common/ids';
import { toIso } from '../../common/time';
import { AgentToolChanges } from '../agent-tool-changes';
import { ToolCatalog } from '../catalog/tool-catalog';
import { ResolvedAuthorizationRequirement } from '../catalog/tool-specification.types';
import { OAuth2GrantEntity } from '../entities/oauth2-grant.entity';
import { ToolEntity } from '../entities/tool.entity';
import { OAuth2ProviderRegistry } from './oauth2-provider.registry';
import { OAuth2RefreshWriter, RefreshedGrant } from './oauth2-refresh.writer';
import { OAuth2TokenClient, OAuth2TokenSet } from './oauth2-token.client';

/** Access tokens are refreshed when they expire within this margin, so a call never starts stale. */
export const REFRESH_MARGIN_MS = 60_000;

export interface GrantOwner {
  organizationId: string;
  agentId: string;
  providerId: string;
}

type TokenKind = 'access_token' | 'refresh_token';

/** The associated data binds a sealed token to its grant (organization, agent, provider) and kind. */
const tokenAad = (owner: GrantOwner, kind: TokenKind): string =>
  JSON.stringify(['oauth2_grants', owner.organizationId, owner.agentId, owner.providerId, kind]);

const expiresWithin = (grant: OAuth2GrantEntity, now: number, marginMs: number): boolean =>
  grant.expiresAt !== null && grant.expiresAt.getTime() - now <= marginMs;

/** An active grant whose access token still works, or can be refreshed. */
export function isLiveGrant(grant: OAuth2GrantEntity, now: number): boolean {
  return (
    grant.status === 'active' &&
    grant.accessTokenEncrypted !== null &&
    (grant.refreshTokenEncrypted !== null || !expiresWithin(grant, now, 0))
  );
}

/**
 * The OAuth2 grants agents hold, one per (organization, agent, provider), and the tokens in them.
 * Other modules get a usable access token through `accessToken()` only.
 */
@Injectable()
export class OAuth2GrantsService {
  private readonly logger = new Logger(OAuth2GrantsService.name);

  constructor(
    @InjectRepository(OAuth2GrantEntity) private readonly grants: Repository<OAuth2GrantEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly catalog: ToolCatalog,
    private readonly registry: OAuth2ProviderRegistry,
    private readonly tokens: OAuth2TokenClient,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly writer: OAuth2RefreshWriter,
    private readonly changes: AgentToolChanges,
  ) {}

  async findByAgent(organizationId: string, agentId: string): Promise<OAuth2GrantEntity[]> {
    return this.grants.findBy({ organizationId, agentId });
  }

  async findOne(owner: GrantOwner): Promise<OAuth2GrantEntity | null> {
    return this.grants.findOneBy({ ...owner });
  }

  /**
   * A live access token for the agent on the provider, or null when there is none (no grant, a
   * failed one, or an expired token that cannot be refreshed). A token that expires within
   * REFRESH_MARGIN_MS is refreshed first; replicas serialize on the grant row, so one refreshes
   * and the others read its result.
   */
  async accessToken(
    organizationId: string,
    agentId: string,
    providerId: string,
  ): Promise<string | null> {
    const owner = { organizationId, agentId, providerId };
    // Tokens this process refreshed and could not store yet are newer than the row.
    const held = this.writer.pending(owner);
    if (held) return this.heldAccessToken(held);
    const grant = await this.grants.findOneBy(owner);
    if (!grant || grant.status !== 'active' || grant.accessTokenEncrypted === null) return null;
    if (!expiresWithin(grant, this.clock.now(), REFRESH_MARGIN_MS)) {
      return this.secrets.decrypt(grant.accessTokenEncrypted, tokenAad(owner, 'access_token'));
    }
    return this.refresh(owner);
  }

  /**
   * Stores what a token endpoint issued for an authorization (replacing the agent's earlier grant
   * on the provider), then settles the agent's tools on it: pending tools whose scopes are covered
   * complete; completed tools whose scopes are no longer covered fail.
   */
  async store(
    owner: GrantOwner,
    tokens: OAuth2TokenSet,
    requestedScopes: readonly string[],
  ): Promise<OAuth2GrantEntity> {
    const now = this.clock.now();
    const scopes = tokens.scopes ?? [...requestedScopes];
    const grant = await this.dataSource.transaction(async (db) => {
      // One statement, so that two callbacks for the same agent and provider cannot collide; a
      // provider that sends no new refresh token leaves the one it issued before in place.
      await db.query(
        `INSERT INTO oauth2_grants (id, organization_id, agent_id, provider_id, status, scopes,
           access_token_encrypted, refresh_token_encrypted, token_type, expires_at, failure_reason,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'active', $5, $6, $7, $8, $9, NULL, $10, $10)
         ON CONFLICT (organization_id, agent_id, provider_id) DO UPDATE SET
           status = 'active',
           scopes = EXCLUDED.scopes,
           access_token_encrypted = EXCLUDED.access_token_encrypted,
           refresh_token_encrypted = COALESCE(EXCLUDED.refresh_token_encrypted,
             oauth2_grants.refresh_token_encrypted),
           token_type = EXCLUDED.token_type,
           expires_at = EXCLUDED.expires_at,
           failure_reason = NULL,
           updated_at = EXCLUDED.updated_at`,
        [
          uuidv7(now),
          owner.organizationId,
          owner.agentId,
          owner.providerId,
          scopes.join(' '),
          this.secrets.encrypt(tokens.accessToken, tokenAad(owner, 'access_token')),
          tokens.refreshToken
            ? this.secrets.encrypt(tokens.refreshToken, tokenAad(owner, 'refresh_token'))
            : null,
          tokens.tokenType ?? null,
          tokens.expiresIn === undefined ? null : toIso(now + tokens.expiresIn * 1000),
          toIso(now),
        ],
      );
      const stored = await db.findOneByOrFail(OAuth2GrantEntity, { ...owner });
      await this.settleTools(db, stored, now);
      return stored;
    });
    // Its tools may have completed (the OAuth2 callback) or failed (scopes no longer granted).
    await this.changes.publish(owner.organizationId, owner.agentId);
    return grant;
  }

  /**
   * Refreshes under the grant row's lock (`FOR UPDATE`): of replicas that refresh at once, one
   * calls the provider and the others read its result. The new tokens are stored in the same
   * transaction before they are answered; if that write or its commit fails, they are answered
   * from memory and the write is retried (OAuth2RefreshWriter), since the provider may already have
   * consumed the refresh token the row holds.
   */
  private async refresh(owner: GrantOwner): Promise<string | null> {
    let refreshed: RefreshedGrant | undefined;
    try {
      const answer = await this.refreshLocked(owner, (issued) => (refreshed = issued));
      if (refreshed) this.writer.committed(refreshed);
      return answer;
    } catch (error) {
      if (!refreshed) throw error;
      this.writer.retry(refreshed, error);
      return refreshed.accessToken;
    }
  }

  private async refreshLocked(
    owner: GrantOwner,
    onIssued: (refreshed: RefreshedGrant) => void,
  ): Promise<string | null> {
    let toolsFailed = false;
    const answer = await this.dataSource.transaction(async (db) => {
      const grant = await db.findOne(OAuth2GrantEntity, {
        where: { ...owner },
        lock: { mode: 'pessimistic_write' },
      });
      if (!grant || grant.status !== 'active' || grant.accessTokenEncrypted === null) return null;
      // This process refreshed while this call waited for the lock, and holds what it has not stored.
      const held = this.writer.pending(owner);
      if (held) return this.heldAccessToken(held);
      const now = this.clock.now();
      const current = expiresWithin(grant, now, 0)
        ? null
        : this.secrets.decrypt(grant.accessTokenEncrypted, tokenAad(owner, 'access_token'));
      // Another replica may have refreshed while this one waited for the lock.
      if (!expiresWithin(grant, now, REFRESH_MARGIN_MS)) return current;
      if (grant.refreshTokenEncrypted === null) return current;
      const lookup = this.registry.find(owner.providerId);
      if (!lookup.configured) {
        this.logger.warn({ provider: owner.providerId }, 'cannot refresh: provider not configured');
        return current;
      }
      const outcome = await this.tokens.refresh(
        lookup.provider,
        this.secrets.decrypt(grant.refreshTokenEncrypted, tokenAad(owner, 'refresh_token')),
      );
      if (outcome.kind === 'issued') {
        const refreshed = this.sealRefreshed(
          owner,
          grant,
          grant.accessTokenEncrypted,
          outcome.tokens,
          now,
        );
        onIssued(refreshed);
        this.metrics.oauth2Refreshes.inc({ outcome: 'refreshed' });
        this.logger.log({ provider: owner.providerId, grant: grant.id }, 'access token refreshed');
        await this.writer.write(db, refreshed);
        return refreshed.accessToken;
      }
      if (outcome.kind === 'invalid_grant') {
        const reason = `${outcome.reason}; authorize again with POST /v1/tools/{id}/authorize`;
        await db.update(
          OAuth2GrantEntity,
          { id: grant.id, organizationId: owner.organizationId },
          {
            status: 'failed',
            accessTokenEncrypted: null,
            refreshTokenEncrypted: null,
            expiresAt: null,
            failureReason: reason,
            updatedAt: new Date(now),
          },
        );
        toolsFailed = await this.failTools(db, owner, reason, now);
        this.metrics.oauth2Refreshes.inc({ outcome: 'refused' });
        this.logger.warn({ provider: owner.providerId, grant: grant.id }, 'refresh refused');
        return null;
      }
      // Transient: the token still in hand (if any) is the best answer; the next call retries.
      this.metrics.oauth2Refreshes.inc({ outcome: 'failed' });
      this.logger.warn({ provider: owner.providerId, reason: outcome.reason }, 'refresh failed');
      return current;
    });
    if (toolsFailed) await this.changes.publish(owner.organizationId, owner.agentId);
    return answer;
  }

  /**
   * What a refresh issued, sealed for the grant row. Providers that rotate refresh tokens send a
   * new one; the others keep the old one valid.
   */
  private sealRefreshed(
    owner: GrantOwner,
    grant: OAuth2GrantEntity,
    replaces: string,
    tokens: OAuth2TokenSet,
    now: number,
  ): RefreshedGrant {
    const expiresAt =
      tokens.expiresIn === undefined ? null : new Date(now + tokens.expiresIn * 1000);
    return {
      owner,
      grantId: grant.id,
      replaces,
      accessToken: tokens.accessToken,
      expiresAt,
      columns: {
        accessTokenEncrypted: this.secrets.encrypt(
          tokens.accessToken,
          tokenAad(owner, 'access_token'),
        ),
        ...(tokens.refreshToken && {
          refreshTokenEncrypted: this.secrets.encrypt(
            tokens.refreshToken,
            tokenAad(owner, 'refresh_token'),
          ),
        }),
        ...(tokens.scopes && { scopes: tokens.scopes }),
        tokenType: tokens.tokenType ?? grant.tokenType,
        expiresAt,
        updatedAt: new Date(now),
      },
    };
  }

  /**
   * A refreshed access token not stored yet is answered while it has not expired: using it cannot
   * hurt the grant (providers invalidate refresh tokens when they issue new ones, never when an
   * access token is used), and the refresh token it came with is the one being stored.
   */
  private heldAccessToken(held: RefreshedGrant): string | null {
    return held.expiresAt === null || held.expiresAt.getTime() > this.clock.now()
      ? held.accessToken
      : null;
  }

  private requirementOf(tool: ToolEntity): ResolvedAuthorizationRequirement | undefined {
    return this.catalog.find(tool.qualifiedName)?.requirements.authorization;
  }

  private async settleTools(
    db: EntityManager,
    grant: OAuth2GrantEntity,
    now: number,
  ): Promise<void> {
    const tools = await db.findBy(ToolEntity, {
      organizationId: grant.organizationId,
      agentId: grant.agentId,
      authorizationStatus: In(['pending', 'completed']),
    });
    for (const tool of tools) {
      const requirement = this.requirementOf(tool);
      if (requirement?.provider_id !== grant.providerId) continue;
      const missing = requirement.scopes.filter((scope) => !grant.scopes.includes(scope));
      if (tool.authorizationStatus === 'pending' && missing.length === 0) {
        await db.update(
          ToolEntity,
          { id: tool.id, organizationId: grant.organizationId, authorizationStatus: 'pending' },
          {
            authorizationStatus: 'completed',
            oauth2Url: '',
            authorizationStatusReason: null,
            updatedAt: new Date(now),
          },
        );
      } else if (tool.authorizationStatus === 'completed' && missing.length > 0) {
        await db.update(
          ToolEntity,
          { id: tool.id, organizationId: grant.organizationId, authorizationStatus: 'completed' },
          {
            authorizationStatus: 'failed',
            authorizationStatusReason: `Provider '${grant.providerId}' no longer grants ${missing.join(' ')}; authorize again with POST /v1/tools/{id}/authorize`,
            updatedAt: new Date(now),
          },
        );
      }
    }
  }

  /**
   * The agent's completed tools on the provider, which relied on a grant that is gone. Pending
   * ones keep waiting: their own authorization in flight may still complete them. True when some
   * failed.
   */
  private async failTools(
    db: EntityManager,
    owner: GrantOwner,
    reason: string,
    now: number,
  ): Promise<boolean> {
    const tools = await db.findBy(ToolEntity, {
      organizationId: owner.organizationId,
      agentId: owner.agentId,
      authorizationStatus: 'completed',
    });
    const ids = tools
      .filter((tool) => this.requirementOf(tool)?.provider_id === owner.providerId)
      .map((tool) => tool.id);
    if (ids.length === 0) return false;
    await db.update(
      ToolEntity,
      { id: In(ids), organizationId: owner.organizationId, authorizationStatus: 'completed' },
      {
        authorizationStatus: 'failed',
        oauth2Url: '',
        authorizationStatusReason: reason,
        updatedAt: new Date(now),
      },
    );
    return true;
  }
}
