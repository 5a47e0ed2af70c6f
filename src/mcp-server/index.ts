/**
 * What the composition root uses of mcp-server (docs/architecture.md): the module, its
 * configuration, and AgentToolChanges, through which a change of an agent's tools reaches the
 * agent's open MCP event streams.
 */
export { McpServerModule } from './mcp-server.module';
export { readMcpServerConfig } from './mcp-server.config';
export { AgentToolChanges } from './agent-tool-changes';
