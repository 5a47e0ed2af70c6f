import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoggers } from './app-logger';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('LOG_FILE', () => {
  let umask: number;
  beforeEach(() => {
    // The loosest umask there is: nothing but the mode agentline asks for narrows the file.
    umask = process.umask(0o000);
  });
  afterEach(() => {
    process.umask(umask);
  });

  it('is created 0600 (its directory 0700) under umask 000, and written to', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agentline-log-')), 'logs', 'agentline.log');
    const { app } = createLoggers({ log: { level: 'info', file } });
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(join(file, '..'))).toBe(0o700);
    app.info({ organization_id: 'org-1' }, 'written');
    expect(readFileSync(file, 'utf8')).toContain('"msg":"written"');
    expect(modeOf(file)).toBe(0o600);
  });

  it('narrows a file an older version left readable to others, and appends to it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agentline-log-')), 'agentline.log');
    writeFileSync(file, 'an earlier line\n');
    chmodSync(file, 0o666);
    const { app } = createLoggers({ log: { level: 'info', file } });
    expect(modeOf(file)).toBe(0o600);
    app.info('appended');
    expect(readFileSync(file, 'utf8')).toMatch(/^an earlier line\n.*"msg":"appended"/);
  });
});
