import { AuthorizationState } from '../catalog/tool-specification.types';
import { OAuth2GrantEntity } from '../entities/oauth2-grant.entity';
import { ToolEntity } from '../entities/tool.entity';
import { OAuth2ProviderLookup } from './oauth2-provider.registry';

export type TokenStatus = 'active' | 'expired' | 'failed' | 'not_started';

export function tokenStatus(grant: OAuth2GrantEntity | undefined, now: number): TokenStatus {
  if (!grant) return 'not_started';
  if (grant.status === 'failed' || grant.accessTokenEncrypted === null) return 'failed';
  return grant.expiresAt !== null && grant.expiresAt.getTime() <= now ? 'expired' : 'active';
}

/**
 * `requirements.authorization` of an OAuth2 tool for one agent: the status is the attachment's,
 * the token status is the grant's, and the reason says what to do next. Undefined leaves the
 * catalog's default ("not started").
 */
export function toOAuth2RequirementState(input: {
  providerId: string;
  provider: OAuth2ProviderLookup;
  attachment?: ToolEntity;
  grant?: OAuth2GrantEntity;
  now: number;
}): AuthorizationState | undefined {
  const { providerId, provider, attachment, grant, now } = input;
  const token = tokenStatus(grant, now);
  if (!attachment) {
    if (!provider.configured) {
      return { status: 'not_started', status_reason: provider.reason, token_status: token };
    }
    return grant
      ? {
          status: 'not_started',
          status_reason: `Not attached to this agent; POST /v1/tools attaches it with provider '${providerId}'`,
          token_status: token,
        }
      : undefined;
  }
  const status = attachment.authorizationStatus;
  let reason: string;
  switch (status) {
    case 'completed':
      reason =
        token === 'expired' && grant?.refreshTokenEncrypted === null
          ? `The access token of provider '${providerId}' expired and cannot be refreshed; authorize again with POST /v1/tools/${attachment.id}/authorize`
          : '';
      break;
    case 'pending':
      reason = `Waiting for the user to authorize with provider '${providerId}' at the tool's oauth2_url`;
      break;
    case 'failed':
      reason =
        attachment.authorizationStatusReason ??
        `Authorization with provider '${providerId}' failed`;
      break;
    default:
      reason = provider.configured
        ? `Authorization with provider '${providerId}' has not been started; POST /v1/tools/${attachment.id}/authorize starts it`
        : provider.reason;
  }
  return { id: attachment.id, status, status_reason: reason, token_status: token };
}
