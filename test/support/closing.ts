import type { Server } from 'node:http';
import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';

const HOOKS = ['onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'] as const;
/** A close slower than this says what it waits for (jest's hook time-out is 60 s). */
const SLOW_CLOSE_MS = 20_000;

/**
 * app.close(), and when it is slow, a warning naming the providers' shutdown hooks not yet
 * returned and the HTTP connections still open. The HTTP server itself closes within
 * HTTP_SHUTDOWN_TIMEOUT_MS (HttpShutdown), so a slow close is a hook that does not return.
 */
export async function closeApp(app: INestApplication): Promise<void> {
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
        `app.close() has waited ${Date.now() - started} ms: hooks ${[...pending].join(', ') || 'none'}; ${connections} HTTP connections open`,
      );
    });
  }, SLOW_CLOSE_MS);
  try {
    await app.close();
  } finally {
    clearInterval(slow);
  }
}
