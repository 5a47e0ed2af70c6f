import { DataSource } from 'typeorm';
import { ToolEntity } from '../../src/tools/entities/tool.entity';
import { OAuth2GrantsService } from '../../src/tools/oauth2/oauth2-grants.service';
import { TestApp } from './test-app';

/**
 * Stands in for the OAuth2 flow (tested against its own fake provider in oauth2.e2e-spec.ts): a
 * grant holding `accessToken` for the tool's agent, and the attachment completed as the callback
 * would leave it.
 */
export async function completeOAuth2Authorization(
  t: TestApp,
  tool: { id: string; organizationId: string; agentId?: string },
  grant: { providerId: string; accessToken: string; scopes: readonly string[] },
): Promise<void> {
  await t.app.get(OAuth2GrantsService).store(
    {
      organizationId: tool.organizationId,
      agentId: tool.agentId ?? 'agent-1',
      providerId: grant.providerId,
    },
    { accessToken: grant.accessToken },
    grant.scopes,
  );
  await t.app
    .get(DataSource)
    .getRepository(ToolEntity)
    .update(
      { id: tool.id, organizationId: tool.organizationId },
      { authorizationStatus: 'completed' },
    );
}
