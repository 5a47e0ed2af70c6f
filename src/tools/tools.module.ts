import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { loadToolCatalog, ToolCatalog } from './catalog/tool-catalog';
import { OAuth2GrantEntity } from './entities/oauth2-grant.entity';
import { OAuth2StateEntity } from './entities/oauth2-state.entity';
import { ToolEntity } from './entities/tool.entity';
import { BuiltinToolkitsRegistrar } from './execution/builtin/builtin-toolkits.registrar';
import { ToolExecutionController } from './execution/tool-execution.controller';
import { ToolExecutionEntity } from './execution/tool-execution.entity';
import { McpToolCalls, OAuth2AccessTokens } from './execution/tool-execution.ports';
import { ToolExecutionService } from './execution/tool-execution.service';
import { ToolExecutorRegistry } from './execution/tool-executor.registry';
import { McpToolkits } from './mcp/mcp-toolkits.service';
import { OAuth2AuthorizationService } from './oauth2/oauth2-authorization.service';
import { OAuth2CallbackController } from './oauth2/oauth2-callback.controller';
import { OAuth2GrantsService } from './oauth2/oauth2-grants.service';
import { OAuth2ProviderRegistry } from './oauth2/oauth2-provider.registry';
import { OAuth2TokenClient } from './oauth2/oauth2-token.client';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      ToolEntity,
      ToolExecutionEntity,
      OAuth2GrantEntity,
      OAuth2StateEntity,
    ]),
  ],
  controllers: [ToolsController, ToolExecutionController, OAuth2CallbackController],
  providers: [
    ToolsService,
    // Loaded and validated at boot: a bad toolkit file stops the service with the file and field named.
    { provide: ToolCatalog, useFactory: () => loadToolCatalog() },
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
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new OAuth2TokenClient(config.oauth2.httpTimeoutMs),
    },
    OAuth2GrantsService,
    OAuth2AuthorizationService,
    { provide: OAuth2AccessTokens, useExisting: OAuth2GrantsService },
  ],
  exports: [McpToolkits, ToolExecutorRegistry, OAuth2GrantsService],
})
export class ToolsModule {}
