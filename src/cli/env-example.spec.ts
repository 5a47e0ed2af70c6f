import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { readConfiguration } from '../app.module';
import { declaredVariables } from '../config/env-declaration';
import { configurationFiles } from '../config/env-docs';

const root = join(__dirname, '..', '..');

describe('the configuration files written from the declarations', () => {
  it.each(
    configurationFiles(root, declaredVariables()).map((file) => [relative(root, file.file), file]),
  )('%s is what `npm run env:example` writes', (_name, { file, content }) => {
    // A failure here: run `npm run env:example` and commit the result.
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('holds every variable the modules read: reading them all finds none undeclared', () => {
    // readEnvironment refuses a class with a variable that has no @Env, or in no @EnvGroup.
    expect(() =>
      readConfiguration({ DATA_DIR: mkdtempSync(join(tmpdir(), 'agentline-env-')) }),
    ).not.toThrow();
    const names = declaredVariables().flatMap((group) => group.variables.map((v) => v.name));
    for (const name of [
      'PORT',
      'GRAPH_API_URL',
      'SCHEDULER_ENABLED',
      'GITHUB_API_URL',
      'OAUTH_<ID>_CLIENT_ID',
      'METRICS_TOKEN',
      'MCP_TOOLS_PAGE_SIZE',
      'AGENT_EVENTS_URL',
      'TOOL_WORKER_THREADS',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('leaves every secret empty in .env.example and keeps its lines within 100 columns', () => {
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    const secrets = declaredVariables()
      .flatMap((group) => group.variables)
      .filter((variable) => variable.secret);
    expect(secrets.map((variable) => variable.name)).toEqual(
      expect.arrayContaining([
        'JWT_SECRET',
        'ENCRYPTION_KEY',
        'META_APP_SECRET',
        'AGENT_EVENTS_SECRET',
      ]),
    );
    for (const { name } of secrets) expect(example).toContain(`\n# ${name}=\n`);
    expect(example.split('\n').filter((line) => line.length > 100)).toEqual([]);
  });
});
