import { AgentToolChanges } from './agent-tool-changes';
import { AgentToolbox } from './agent-toolbox.service';
import { CatalogPages } from './catalog/catalog-pages';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { loadToolCatalog, ToolCatalog } from './catalog/tool-catalog';
import { ToolExecutionController } from './execution/tool-execution.controller';
import { McpToolCalls, OAuth2AccessTokens } from './execution/tool-execution.ports';
import { ToolExecutionService } from './execution/tool-execution.service';
import { ToolExecutorRegistry } from './execution/tool-executor.registry';
import { McpToolkits } from './mcp/mcp-toolkits.service';
import { OAuth2AuthorizationService } from './oauth2/oauth2-authorization.service';
import { OAuth2CallbackController } from './oauth2/oauth2-callback.controller';
import { OAuth2GrantsService } from './oauth2/oauth2-grants.service';
import { OAuth2ProviderRegistry } from './oauth2/oauth2-provider.registry';
import { OAuth2RefreshWriter } from './oauth2/oauth2-refresh.writer';
import { OAuth2TokenClient } from './oauth2/oauth2-token.client';
import { BuiltinToolkitsRegistrar } from './toolkits/builtin-toolkits.registrar';
import { readToolsConfig, TOOLS_CONFIG, ToolsConfig } from './tools.config';
import { ToolsController } from './tools.controller';
import { TOOLS_ENTITIES } from './tools.entities';
import { ToolsService } from './tools.service';

@Module({
  imports: [TypeOrmModule.forFeature(TOOLS_ENTITIES)],
  controllers: [ToolsController, ToolExecutionController, OAuth2CallbackController],
  providers: [
    {
      provide: TOOLS_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (shared: AppConfig): ToolsConfig => readToolsConfig(process.env, shared),
    },
    ToolsService,
    // Tells the MCP server's streams, on every replica, when an agent's tools change.
    AgentToolChanges,
    // Loaded and validated at boot: a bad toolkit file stops the service with the file and field named.
    { provide: ToolCatalog, useFactory: () => loadToolCatalog() },
    CatalogPages,
    // Connects the configured MCP servers and keeps their toolkits in the catalog.
    McpToolkits,
    // Tool execution: other modules register their executors into the registry on init.
    ToolExecutorRegistry,
    ToolExecutionService,
    BuiltinToolkitsRegistrar,
    { provide: McpToolCalls, useExisting: McpToolkits },
    // OAuth2: providers from presets and OAUTH_<ID>_* (a bad one stops the boot), grants, the flow.
    OAuth2ProviderRegistry,
    {
      provide: OAuth2TokenClient,
      inject: [TOOLS_CONFIG],
      useFactory: (config: ToolsConfig) => new OAuth2TokenClient(config.oauth2.httpTimeoutMs),
    },
    OAuth2RefreshWriter,
    OAuth2GrantsService,
    OAuth2AuthorizationService,
    { provide: OAuth2AccessTokens, useExisting: OAuth2GrantsService },
    // An agent's tools as its MCP server (src/mcp-server) lists and calls them.
    AgentToolbox,
  ],
  exports: [
    AgentToolChanges,
    AgentToolbox,
    TOOLS_CONFIG,
    McpToolkits,
    ToolExecutorRegistry,
    OAuth2GrantsService,
  ],
})
export class ToolsModule {}
