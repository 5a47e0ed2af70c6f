import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMcpServers } from './mcp-server.config';

const read = (servers: unknown) => readMcpServers({ MCP_SERVERS: JSON.stringify(servers) });
const errorsFor = (servers: unknown) => read(servers).errors.join('\n');

describe('MCP server configuration', () => {
  it('is empty when nothing is configured', () => {
    expect(readMcpServers({})).toEqual({ servers: [], errors: [] });
    expect(readMcpServers({ MCP_SERVERS: '  ' })).toEqual({ servers: [], errors: [] });
  });

  it('reads stdio and Streamable HTTP servers with defaults', () => {
    const reading = read([
      { id: 'everything', command: 'node', args: ['server.js', 'stdio'], env: { KEY: 'v' } },
      { id: 'bare', command: 'mcp-bare' },
      {
        id: 'remote',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer x' },
        toolkit: 'Remote',
        timeout_ms: 5000,
      },
    ]);
    expect(reading.errors).toEqual([]);
    expect(reading.servers).toEqual([
      {
        id: 'everything',
        transport: 'stdio',
        command: 'node',
        args: ['server.js', 'stdio'],
        env: { KEY: 'v' },
      },
      { id: 'bare', transport: 'stdio', command: 'mcp-bare', args: [], env: {} },
      {
        id: 'remote',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer x' },
        toolkit: 'Remote',
        timeoutMs: 5000,
      },
    ]);
  });

  it('reads MCP_SERVERS_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentline-mcp-'));
    try {
      const file = join(dir, 'servers.json');
      writeFileSync(file, JSON.stringify([{ id: 'a', url: 'http://127.0.0.1:9/mcp' }]));
      expect(readMcpServers({ MCP_SERVERS_FILE: file }).servers).toHaveLength(1);
      expect(readMcpServers({ MCP_SERVERS_FILE: join(dir, 'missing.json') }).errors).toEqual([
        `MCP_SERVERS_FILE: cannot read ${join(dir, 'missing.json')} (ENOENT)`,
      ]);
      writeFileSync(file, '{"id": 1');
      expect(readMcpServers({ MCP_SERVERS_FILE: file }).errors[0]).toMatch(
        /^MCP_SERVERS_FILE \(.*servers\.json\) is not valid JSON/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses both variables at once', () => {
    expect(readMcpServers({ MCP_SERVERS: '[]', MCP_SERVERS_FILE: 'x.json' }).errors).toEqual([
      'set only one of MCP_SERVERS and MCP_SERVERS_FILE',
    ]);
  });

  it('never repeats secrets in its messages', () => {
    const secret = 'Bearer sk-live-0123456789';
    const broken = `[{"id":"a","url":"http://x/mcp","headers":{"Authorization":"${secret}"}`;
    const message = readMcpServers({ MCP_SERVERS: broken }).errors.join();
    expect(message).toMatch(/^MCP_SERVERS is not valid JSON/);
    expect(message).not.toContain('sk-live');
    const typed = errorsFor([
      { id: 'a', url: 'http://user:sk-live-pw@x/mcp', headers: { Authorization: 5 }, bogus: 1 },
      { id: 'b', command: 'x', env: { TOKEN: ['sk-live-1'] } },
    ]);
    expect(typed).toContain('MCP_SERVERS[0].headers: values must be strings (see Authorization)');
    expect(typed).toContain('MCP_SERVERS[1].env: values must be strings (see TOKEN)');
    expect(typed).not.toContain('sk-live');
  });

  it.each([
    ['not an array', { id: 'a' }, 'MCP_SERVERS must be a JSON array of server objects'],
    ['an entry that is not an object', ['x'], 'MCP_SERVERS[0]: expected an object'],
    ['a missing id', [{ command: 'x' }], 'MCP_SERVERS[0].id: is required'],
    ['a bad id', [{ id: 'a b', command: 'x' }], 'MCP_SERVERS[0].id: "a b" must match'],
    ['neither command nor url', [{ id: 'a' }], 'set exactly one of "command" (stdio) and "url"'],
    [
      'both command and url',
      [{ id: 'a', command: 'x', url: 'http://x' }],
      'set exactly one of "command"',
    ],
    ['an empty command', [{ id: 'a', command: '' }], 'command: must be a non-empty string'],
    ['bad args', [{ id: 'a', command: 'x', args: 'y' }], 'args: must be an array of strings'],
    ['env that is not an object', [{ id: 'a', command: 'x', env: [] }], 'env: must be an object'],
    ['headers on stdio', [{ id: 'a', command: 'x', headers: {} }], 'headers: does not apply'],
    ['env on http', [{ id: 'a', url: 'http://x', env: {} }], 'env: does not apply to an HTTP'],
    ['a bad url', [{ id: 'a', url: 'not a url' }], 'MCP_SERVERS[0].url: is not a valid URL'],
    ['a non-http url', [{ id: 'a', url: 'ftp://x/mcp' }], 'url: must be an http:// or https://'],
    ['a bad toolkit', [{ id: 'a', command: 'x', toolkit: 'My-Kit' }], 'toolkit: "My-Kit" must'],
    [
      'a long toolkit',
      [{ id: 'a', command: 'x', toolkit: 'K'.repeat(41) }],
      'toolkit: must be at most 40',
    ],
    ['a bad timeout', [{ id: 'a', command: 'x', timeout_ms: 5 }], 'timeout_ms: must be an integer'],
    ['an unknown key', [{ id: 'a', command: 'x', comand: 'y' }], 'comand: unknown property'],
    [
      'duplicate ids',
      [
        { id: 'a', command: 'x' },
        { id: 'A', command: 'y' },
      ],
      'MCP_SERVERS[1].id: "A" is already used by MCP_SERVERS[0]',
    ],
    [
      'duplicate toolkits',
      [
        { id: 'a', command: 'x', toolkit: 'Kit' },
        { id: 'b', command: 'y', toolkit: 'kit' },
      ],
      'MCP_SERVERS[1].toolkit: "kit" is already used by MCP_SERVERS[0]',
    ],
  ])('rejects %s', (_what, servers, message) => {
    const reading = read(servers);
    expect(reading.servers).toEqual([]);
    expect(reading.errors.join('\n')).toContain(message);
  });
});
