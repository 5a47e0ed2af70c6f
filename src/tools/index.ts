/**
 * What other modules may use of tools (docs/architecture.md): the module and its configuration
 * for the composition root, and the executor contract for the modules that bring tools of their
 * own (agentline-toolkit) or run tasks of the same shape (the scheduler's worker modules), and
 * an agent's tools as the MCP server (mcp-server) lists and runs them.
 */
export { ToolsModule } from './tools.module';
export { AgentToolChanges } from './agent-tool-changes';
export { readToolsConfig } from './tools.config';
export type { ToolExecutionContext, ToolExecutor, ToolInput } from './execution/tool-executor';
export { ToolExecutionError } from './execution/tool-executor';
export { ToolExecutorRegistry } from './execution/tool-executor.registry';
export { asToolError, validDto } from './execution/tool-errors';
export { requiredString } from './execution/required-input';
export { asToolFailure } from './execution/worker-tool-executor';
export { AgentToolbox } from './agent-toolbox.service';
export type { AgentToolCall } from './agent-toolbox.service';
export type { McpTool } from './catalog/tool-specification.types';
