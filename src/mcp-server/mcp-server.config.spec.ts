import { ConfigError } from '../config/environment';
import { readMcpServerConfig } from './mcp-server.config';

describe('readMcpServerConfig', () => {
  it('has defaults', () => {
    expect(readMcpServerConfig({})).toEqual({
      allowedOrigins: [],
      maxStreamsPerOrganization: 50,
      streamIdleTimeoutMs: 300_000,
      toolsPageSize: 100,
    });
  });

  it('reads origins as URL origins, and the bounds', () => {
    const config = readMcpServerConfig({
      MCP_ALLOWED_ORIGINS: 'https://App.example.com:443/, http://localhost:5173',
      MCP_MAX_STREAMS_PER_ORGANIZATION: '3',
      MCP_STREAM_IDLE_TIMEOUT_MS: '1000',
      MCP_TOOLS_PAGE_SIZE: '1',
    });
    expect(config).toEqual({
      allowedOrigins: ['https://app.example.com', 'http://localhost:5173'],
      maxStreamsPerOrganization: 3,
      streamIdleTimeoutMs: 1000,
      toolsPageSize: 1,
    });
  });

  it.each([
    ['MCP_ALLOWED_ORIGINS', 'app.example.com'],
    ['MCP_ALLOWED_ORIGINS', 'ftp://files.example.com'],
    ['MCP_MAX_STREAMS_PER_ORGANIZATION', '0'],
    ['MCP_STREAM_IDLE_TIMEOUT_MS', '999'],
    ['MCP_TOOLS_PAGE_SIZE', 'many'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => readMcpServerConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => readMcpServerConfig({ [name]: value })).toThrow(name);
  });
});
