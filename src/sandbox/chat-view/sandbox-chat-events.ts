import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Response } from 'express';
import type { Principal } from '../../common/auth/principal';
import { ProblemException } from '../../common/http/problem';
import { concurrencyFields, withFieldsOf } from '../../common/http/rate-limit-policy';
import { SandboxChatView } from './sandbox-chat-view.service';

/** Open chat-view streams per organization: a page holds one; a few tabs are fine. */
export const SANDBOX_STREAMS_PER_ORGANIZATION = 10;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 25_000;
/** Node fires a longer delay at once (see the MCP event stream). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The chat view's live updates: server-sent events, one `change` event per message added or
 * advanced in a conversation of the organization's channels. The page reads them with fetch (an
 * EventSource cannot send the bearer token). A stream ends when its token expires, and at
 * shutdown.
 */
@Injectable()
export class SandboxChatEvents implements OnModuleDestroy {
  private readonly open = new Set<() => void>();
  private readonly streams = new Map<string, number>();
  /** Set at shutdown: the HTTP server's close waits for every open response. */
  private closing = false;

  constructor(private readonly view: SandboxChatView) {}

  stream(principal: Principal, response: Response): void {
    if (response.destroyed) return;
    if (this.closing) {
      // A page reconnecting during shutdown: its stream ends at once, and it reconnects to a
      // replica still up. Held open, it would keep this process from exiting.
      response.status(200).type('text/event-stream').end();
      return;
    }
    const organization = principal.organizationId;
    const held = this.streams.get(organization) ?? 0;
    if (held >= SANDBOX_STREAMS_PER_ORGANIZATION) {
      throw new ProblemException(
        'rate_limited',
        `The organization already holds ${held} open chat view streams; close a tab or retry later.`,
        {
          headers: {
            // This limit's own fields after the request limit's, as the MCP stream limit does.
            ...withFieldsOf(
              response,
              concurrencyFields('sandbox-chat-streams', SANDBOX_STREAMS_PER_ORGANIZATION, held),
            ),
            'Retry-After': '30',
          },
        },
      );
    }
    this.streams.set(organization, held + 1);
    response.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    response.write(': open\n\n');

    // Nothing is written once the response ended: a change or a keepalive may come before 'close'.
    const write = (text: string) => {
      if (!response.writableEnded && !response.destroyed) response.write(text);
    };
    const unsubscribe = this.view.watch(principal, (change) => {
      write(`event: change\ndata: ${JSON.stringify(change)}\n\n`);
    });
    const keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
    let expiry: NodeJS.Timeout | undefined;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      unsubscribe();
      clearInterval(keepalive);
      clearTimeout(expiry);
      this.open.delete(end);
      const left = (this.streams.get(organization) ?? 1) - 1;
      if (left > 0) this.streams.set(organization, left);
      else this.streams.delete(organization);
    };
    /** Token expiry or shutdown: unsubscribed and timers cleared before the response ends. */
    const end = () => {
      release();
      response.end();
    };
    if (principal.expiresAtMs !== undefined) {
      expiry = setTimeout(
        end,
        Math.min(Math.max(0, principal.expiresAtMs - Date.now()), MAX_TIMER_MS),
      );
    }
    this.open.add(end);
    response.on('close', release);
  }

  /** Open streams would hold the HTTP server open: they end, and the page reconnects. */
  onModuleDestroy(): void {
    this.closing = true;
    for (const end of [...this.open]) end();
  }
}
