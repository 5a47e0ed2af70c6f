import { Inject, Injectable } from '@nestjs/common';
import type { Server } from 'node:http';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/** Where the stand-in for Graph answers, under the service's own address. */
export const SANDBOX_GRAPH_PATH = '/sandbox/graph';
/** The Graph version the stand-in answers (GRAPH_API_URL's default). */
export const SANDBOX_GRAPH_VERSION = 'v23.0';

/**
 * The service's own address over loopback, as it listens: the channels reach the stand-in for
 * Graph there, and the stand-in posts Meta's notifications to the channels' webhooks there. Not
 * PUBLIC_URL, which may name a proxy or a tunnel that this process cannot reach; read when used,
 * since the port is known only once the server listens (0 in tests).
 */
@Injectable()
export class SandboxLoopback {
  private server?: Server;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  attach(server: Server): void {
    this.server = server;
  }

  /** `http://127.0.0.1:<port>` (or the one address it listens on); PORT until it listens. */
  origin(): string {
    const address = this.server?.address();
    if (!address || typeof address === 'string') return `http://127.0.0.1:${this.config.port}`;
    // Every interface includes loopback; a single address is the only one that answers.
    if (address.address === '0.0.0.0' || address.address === '::') {
      return `http://127.0.0.1:${address.port}`;
    }
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /** GRAPH_API_URL as the channels use it with the sandbox on. */
  graphApiUrl(): string {
    return `${this.origin()}${SANDBOX_GRAPH_PATH}/${SANDBOX_GRAPH_VERSION}`;
  }
}
