import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { Clock } from '../../common/clock';
import { SecretBox } from '../../common/crypto/secret-box';
import { returnedRows } from '../../database/sql';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { TOOLS_CONFIG, ToolsConfig } from '../tools.config';
import { ToolCatalog } from '../catalog/tool-catalog';
import { ResolvedAuthorizationRequirement } from '../catalog/tool-specification.types';
import { OAuth2StateEntity } from '../entities/oauth2-state.entity';
import { ToolEntity } from '../entities/tool.entity';
import { isLiveGrant, OAuth2GrantsService } from './oauth2-grants.service';
import { OAuth2ProviderRegistry } from './oauth2-provider.registry';
import { coversScopes, unionScopes } from './oauth2-scopes';
import { newStateNonce, signState, STATE_TTL_MS, verifyState } from './oauth2-state';
import { OAuth2TokenClient } from './oauth2-token.client';
import { codeChallenge, newCodeVerifier } from './pkce';

/** Expired states stay this long, so that a late callback can still name (and fail) its tool. */
const EXPIRED_STATE_RETENTION_MS = 60 * 60 * 1000;

export const OAUTH2_CALLBACK_PATH = '/v1/oauth2/callback';

/** How a tool's authorization stands after `start()`; the caller stores the tool and the state. */
export type AuthorizationStart =
  | { status: 'completed' }
  | { status: 'not_started'; reason: string }
  | { status: 'pending'; oauth2Url: string; state: OAuth2StateEntity };

export interface CallbackParams {
  state?: string;
  code?: string;
  /** The provider's error code (RFC 6749 §4.1.2.1), e.g. access_denied. */
  error?: string;
}

export type CallbackError =
  | 'invalid_state'
  | 'expired_state'
  | 'state_already_used'
  | 'authorization_refused'
  | 'provider_not_configured'
  | 'token_exchange_failed'
  | 'insufficient_scope';

export type CallbackOutcome =
  | { status: 'completed'; toolId: string; providerId: string }
  | { status: 'failed'; error: CallbackError; message: string; toolId?: string };

const verifierAad = (nonce: string): string =>
  JSON.stringify(['oauth2_states', nonce, 'code_verifier']);

const safeCode = (value: string): string =>
  /^[\w.-]{1,64}$/.test(value) ? value : 'unknown_error';

interface StateRow {
  nonce: string;
  organization_id: string;
  agent_id: string;
  provider_id: string;
  tool_id: string;
  scopes: string;
  code_verifier_encrypted: string;
}

/**
 * The authorization code flow with PKCE (S256): `start()` makes the oauth2_url of a tool,
 * `complete()` handles the user's return to the callback.
 */
@Injectable()
export class OAuth2AuthorizationService {
  private readonly logger = new Logger(OAuth2AuthorizationService.name);

  constructor(
    @InjectRepository(OAuth2StateEntity) private readonly states: Repository<OAuth2StateEntity>,
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    private readonly grants: OAuth2GrantsService,
    private readonly registry: OAuth2ProviderRegistry,
    private readonly tokens: OAuth2TokenClient,
    private readonly catalog: ToolCatalog,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(TOOLS_CONFIG) private readonly toolsConfig: ToolsConfig,
  ) {}

  private get redirectUri(): string {
    return `${this.config.publicUrl}${OAUTH2_CALLBACK_PATH}`;
  }

  /**
   * Completed at once when the agent already holds a live grant that covers the tool's scopes;
   * not started when the provider is not configured; else pending, with a new oauth2_url.
   */
  async start(
    tool: Pick<ToolEntity, 'id' | 'organizationId' | 'agentId'>,
    requirement: ResolvedAuthorizationRequirement,
  ): Promise<AuthorizationStart> {
    const lookup = this.registry.find(requirement.provider_id);
    if (!lookup.configured) return { status: 'not_started', reason: lookup.reason };
    const { provider } = lookup;
    const now = this.clock.now();
    const grant = await this.grants.findOne({
      organizationId: tool.organizationId,
      agentId: tool.agentId,
      providerId: requirement.provider_id,
    });
    const live = grant !== null && isLiveGrant(grant, now);
    if (live && coversScopes(grant.scopes, requirement.scopes)) return { status: 'completed' };

    // Asking again for what the agent already holds keeps its other tools working with the new token.
    const scopes = unionScopes(provider.scopes, live ? grant.scopes : [], requirement.scopes);
    const nonce = newStateNonce();
    const verifier = newCodeVerifier();
    const expiresAt = now + STATE_TTL_MS;
    const url = new URL(provider.authorizeUrl);
    for (const [name, value] of Object.entries(provider.authorizeParams ?? {}))
      url.searchParams.set(name, value);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', provider.clientId);
    url.searchParams.set('redirect_uri', this.redirectUri);
    url.searchParams.set('scope', scopes.join(provider.scopeSeparator));
    url.searchParams.set(
      'state',
      signState({ nonce, expiresAt }, this.toolsConfig.oauth2.stateSecret),
    );
    url.searchParams.set('code_challenge', codeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');

    await this.states.delete({ expiresAt: LessThan(new Date(now - EXPIRED_STATE_RETENTION_MS)) });
    return {
      status: 'pending',
      oauth2Url: url.toString(),
      state: this.states.create({
        nonce,
        organizationId: tool.organizationId,
        agentId: tool.agentId,
        providerId: requirement.provider_id,
        toolId: tool.id,
        scopes,
        codeVerifierEncrypted: this.secrets.encrypt(verifier, verifierAad(nonce)),
        expiresAt: new Date(expiresAt),
        createdAt: new Date(now),
      }),
    };
  }

  /**
   * The user's return from the provider. The state is checked (signature, expiry) and consumed
   * (single use), then the code is exchanged; every failure that the state can be tied to fails
   * that tool. A replayed state changes nothing: the first callback's result stands.
   */
  async complete(params: CallbackParams): Promise<CallbackOutcome> {
    const now = this.clock.now();
    const verification = verifyState(params.state ?? '', this.toolsConfig.oauth2.stateSecret, now);
    if (!verification.valid && verification.reason !== 'expired') {
      this.logger.warn({ reason: verification.reason }, 'OAuth2 callback with an invalid state');
      return {
        status: 'failed',
        error: 'invalid_state',
        message: "The authorization request is not valid. Start again from the tool's oauth2_url.",
      };
    }
    const row = await this.consume(verification.payload.nonce);
    if (!verification.valid) {
      if (row) {
        await this.failTool(
          row,
          `The user did not complete the authorization within 10 minutes; POST /v1/tools/${row.tool_id}/authorize gives a new oauth2_url`,
        );
      }
      return {
        status: 'failed',
        error: 'expired_state',
        message: 'The authorization was not completed within 10 minutes. Request a new link.',
        toolId: row?.tool_id,
      };
    }
    if (!row) {
      this.logger.warn('OAuth2 callback with a state that was already used');
      return {
        status: 'failed',
        error: 'state_already_used',
        message: 'This authorization link was already used.',
      };
    }
    const outcome = await this.exchange(row, params);
    this.logger.log(
      {
        provider: row.provider_id,
        tool: row.tool_id,
        outcome: outcome.status === 'completed' ? 'completed' : outcome.error,
      },
      'OAuth2 callback',
    );
    return outcome;
  }

  private async exchange(row: StateRow, params: CallbackParams): Promise<CallbackOutcome> {
    const providerId = row.provider_id;
    const fail = async (error: CallbackError, message: string): Promise<CallbackOutcome> => {
      await this.failTool(row, message);
      return { status: 'failed', error, message, toolId: row.tool_id };
    };
    if (params.error !== undefined) {
      return fail(
        'authorization_refused',
        `Provider '${providerId}' refused the authorization (${safeCode(params.error)})`,
      );
    }
    if (!params.code) {
      return fail(
        'authorization_refused',
        `Provider '${providerId}' returned no authorization code`,
      );
    }
    const lookup = this.registry.find(providerId);
    if (!lookup.configured) return fail('provider_not_configured', lookup.reason);
    const verifier = this.secrets.decrypt(row.code_verifier_encrypted, verifierAad(row.nonce));
    const result = await this.tokens.exchangeCode(
      lookup.provider,
      params.code,
      verifier,
      this.redirectUri,
    );
    if (result.kind !== 'issued') return fail('token_exchange_failed', result.reason);

    const grant = await this.grants.store(
      { organizationId: row.organization_id, agentId: row.agent_id, providerId },
      result.tokens,
      row.scopes.split(' ').filter(Boolean),
    );
    const tool = await this.tools.findOneBy({
      id: row.tool_id,
      organizationId: row.organization_id,
    });
    if (tool?.authorizationStatus === 'pending') {
      // Still pending: the grant does not cover it (the user may have unticked scopes).
      const needed = this.catalog.find(tool.qualifiedName)?.requirements.authorization?.scopes;
      const missing = (needed ?? []).filter((scope) => !grant.scopes.includes(scope));
      return fail(
        'insufficient_scope',
        `Provider '${providerId}' did not grant ${missing.join(' ') || 'every scope the tool needs'}`,
      );
    }
    return { status: 'completed', toolId: row.tool_id, providerId };
  }

  /** Deletes the state's row and returns it: of two callbacks with one state, one gets the row. */
  private async consume(nonce: string): Promise<StateRow | undefined> {
    const rows = returnedRows<StateRow>(
      await this.states.query(
        `DELETE FROM oauth2_states WHERE nonce = $1
         RETURNING nonce, organization_id, agent_id, provider_id, tool_id, scopes,
           code_verifier_encrypted`,
        [nonce],
      ),
    );
    return rows[0];
  }

  /** Only a tool still waiting on an authorization fails; a result already reached stands. */
  private async failTool(row: StateRow, reason: string): Promise<void> {
    await this.tools.update(
      { id: row.tool_id, organizationId: row.organization_id, authorizationStatus: 'pending' },
      {
        authorizationStatus: 'failed',
        authorizationStatusReason: reason,
        oauth2Url: '',
        updatedAt: new Date(this.clock.now()),
      },
    );
  }
}
