import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The module boundaries are lint rules (eslint.config.mjs, docs/architecture.md): linting the
 * clean code in CI shows only that nothing breaks them. These feed ESLint a file that does, as it
 * would sit in the repository, so a rule that stops firing fails here.
 */
async function lint(filePath: string, code: string): Promise<string[]> {
  const root = join(__dirname, '..');
  const eslint = join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');
  const args = [eslint, '--stdin', '--stdin-filename', filePath, '--format', 'json'];
  const linting = run(process.execPath, args, { cwd: root });
  linting.child.stdin?.end(code);
  // ESLint exits 1 when it reports errors; its report is on stdout either way.
  const { stdout } = await linting.catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? '',
  }));
  const [result] = JSON.parse(stdout) as { messages: { ruleId: string; message: string }[] }[];
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('Module boundaries (lint)', () => {
  it("refuses another module's inner file, and names its public file", async () => {
    const messages = await lint(
      'src/scheduler/deliberately-wrong.ts',
      "import { ChannelStore } from '../channels/channel-store';\nexport const x = ChannelStore;\n",
    );
    expect(messages).toEqual([
      expect.stringMatching(
        /^no-restricted-imports: .*Import what channels exports from its public file, src\/channels\/index\.ts/,
      ),
    ]);
  });

  it('refuses an import against the direction, even through the public file', async () => {
    const messages = await lint(
      'src/channels/deliberately-wrong.ts',
      "import { FollowUpsService } from '../scheduler';\nexport const x = FollowUpsService;\n",
    );
    expect(messages).toEqual([expect.stringMatching(/channels may not import scheduler/)]);
  });

  it("refuses database from the kernel's common/", async () => {
    const messages = await lint(
      'src/common/deliberately-wrong.ts',
      "import { returnedRows } from '../database/sql';\nexport const x = returnedRows;\n",
    );
    expect(messages).toEqual([expect.stringMatching(/common may not import database/)]);
  });

  it('lets the scheduler use channels through its public file', async () => {
    const messages = await lint(
      'src/scheduler/deliberately-right.ts',
      "import { ChannelKinds } from '../channels';\nexport const x = ChannelKinds;\n",
    );
    expect(messages).toEqual([]);
  });
});
