import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The page's three files, read once at boot when the sandbox is on. */
export interface SandboxChatPage {
  enabled: boolean;
  assets: Record<'html' | 'js' | 'css', { type: string; text: string }>;
}

export const SANDBOX_CHAT_PAGE = Symbol('SANDBOX_CHAT_PAGE');

const FILES = {
  html: { file: 'chat.html', type: 'text/html; charset=utf-8' },
  js: { file: 'chat.js', type: 'text/javascript; charset=utf-8' },
  css: { file: 'chat.css', type: 'text/css; charset=utf-8' },
} as const;

/**
 * Beside this file under src/ (ts-node, jest); from dist/src/sandbox/chat-view/, the same folder
 * of the sources (tsc copies no assets; the Dockerfile copies the folder).
 */
function pageDir(): string {
  const beside = join(__dirname, 'page');
  return existsSync(beside)
    ? beside
    : join(__dirname, '..', '..', '..', '..', 'src', 'sandbox', 'chat-view', 'page');
}

export function loadSandboxChatPage(enabled: boolean): SandboxChatPage {
  const dir = pageDir();
  const read = (key: keyof typeof FILES) => ({
    type: FILES[key].type,
    text: enabled ? readFileSync(join(dir, FILES[key].file), 'utf8') : '',
  });
  return { enabled, assets: { html: read('html'), js: read('js'), css: read('css') } };
}
