/**
 * The agent's tool changes, which the MCP server's streams listen to. The class lives in tools
 * (src/tools/agent-tool-changes.ts), whose services publish the changes: tools may not import
 * mcp-server. ToolsModule provides and exports it; a module that lists it in its own providers
 * would get a second instance that hears nothing.
 */
export { AgentToolChanges } from '../tools';
