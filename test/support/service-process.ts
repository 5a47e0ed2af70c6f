import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { TEST_ENCRYPTION_KEY, TEST_JWT_SECRET } from './test-app';

const root = resolve(__dirname, '..', '..');

/** A real agentline process (src/main.ts under ts-node), for crash, replica and signal tests. */
export class ServiceProcess {
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));
  }

  static start(env: Record<string, string>): ServiceProcess {
    const child = spawn(
      process.execPath,
      [require.resolve('ts-node/dist/bin.js'), '--transpile-only', 'src/main.ts'],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          PORT: '0',
          JWT_SECRET: TEST_JWT_SECRET,
          ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
          LOG_LEVEL: 'warn',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    return new ServiceProcess(child);
  }

  /** Resolves once the process has printed `text` (e.g. the "listening" line at LOG_LEVEL=info). */
  async waitForOutput(text: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes(text)) {
      if (Date.now() > deadline)
        throw new Error(`no "${text}" within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}
