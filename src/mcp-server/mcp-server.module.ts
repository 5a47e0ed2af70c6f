import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { ToolsModule } from '../tools';
import { AgentMcpEndpoint } from './agent-mcp-endpoint';
import { McpOriginCheck } from './mcp-origin.middleware';
import { MCP_SERVER_CONFIG, readMcpServerConfig } from './mcp-server.config';
import {
  MCP_PATH,
  McpServerController,
  ProtectedResourceMetadataController,
} from './mcp-server.controller';

/** Each agent's tools over the Model Context Protocol (docs/mcp.md). */
@Module({
  imports: [ToolsModule],
  controllers: [McpServerController, ProtectedResourceMetadataController],
  providers: [
    { provide: MCP_SERVER_CONFIG, useFactory: () => readMcpServerConfig(process.env) },
    // AgentToolChanges comes from ToolsModule: one instance per process, which tools publish to.
    AgentMcpEndpoint,
  ],
})
export class McpServerModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(McpOriginCheck).forRoutes({ path: MCP_PATH, method: RequestMethod.ALL });
  }
}
