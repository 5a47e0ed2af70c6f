import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';

const HOOKS = ['onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'] as const;
/** A close slower than this says what it waits for, then closes its connections (jest's hook time-out is 60 s). */
const SLOW_CLOSE_MS = 20_000;

/** The requests a test app's server is answering now, as `METHOD url`. */
export function requestsInFlight(server: Server): Set<string> {
  const inFlight = new Set<string>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const name = `${request.method ?? '?'} ${request.url ?? '?'}`;
    inFlight.add(name);
    response.on('close', () => inFlight.delete(name));
  });
  return inFlight;
}

/**
 * app.close(), and when it is slow, a warning naming what it still waits for: the providers'
 * shutdown hooks not yet returned, the HTTP connections still open and the requests in flight (a
 * response that never ends keeps the server from closing). Past the first warning the remaining
 * connections are closed, so that one such response costs a warning, not the suite's 60 s hook
 * time-out and every test after it (the warning stays in the output, to be looked into).
 */
export async function closeApp(
  app: INestApplication,
  inFlight: ReadonlySet<string> = new Set(),
): Promise<void> {
  const pending = new Set<string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const provider of module.providers.values()) {
      const instance: unknown = provider.instance;
      if (typeof instance !== 'object' || instance === null) continue;
      const hooks = instance as Record<string, unknown>;
      for (const hook of HOOKS) {
        const original = hooks[hook];
        if (typeof original !== 'function') continue;
        const name = `${String(provider.name)}.${hook}`;
        hooks[hook] = async (...args: unknown[]) => {
          pending.add(name);
          try {
            return await (original as (...a: unknown[]) => unknown).apply(instance, args);
          } finally {
            pending.delete(name);
          }
        };
      }
    }
  }
  const server = app.getHttpServer() as Server;
  const started = Date.now();
  const slow = setInterval(() => {
    server.getConnections((_error, connections) => {
      console.warn(
        `app.close() has waited ${Date.now() - started} ms: hooks ${[...pending].join(', ') || 'none'}; ${connections} HTTP connections open; requests in flight: ${[...inFlight].join(', ') || 'none'}; closing the connections`,
      );
      server.closeAllConnections();
    });
  }, SLOW_CLOSE_MS);
  try {
    await app.close();
  } finally {
    clearInterval(slow);
  }
}
