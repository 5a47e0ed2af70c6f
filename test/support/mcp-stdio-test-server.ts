/**
 * A real MCP server over stdio (the SDK's low-level Server) that a test can make crash:
 * `whoami` answers the process id, `crash` exits the process without answering.
 * Started as `node -r ts-node/register/transpile-only test/support/mcp-stdio-test-server.ts`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'crashy', version: '1.0.0' }, { capabilities: { tools: {} } });
const noInput = { type: 'object' as const, properties: {} };

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'whoami', description: 'Answers the process id.', inputSchema: noInput },
    { name: 'crash', description: 'Exits without answering.', inputSchema: noInput },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  if (request.params.name === 'crash') process.exit(1);
  return { content: [{ type: 'text', text: String(process.pid) }] };
});

void server.connect(new StdioServerTransport());
