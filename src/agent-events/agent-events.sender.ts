import { Metrics } from '../metrics';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHmac, createSecretKey, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { Agent } from 'undici';
import { retryDelayMs } from '../common/backoff';
import { Clock } from '../common/clock';
import { describeOutboundError, keepAliveAgent } from '../common/outbound-http';
import { toIso } from '../common/time';
import { returnedRows } from '../database/sql';
import { AGENT_EVENTS_CONFIG, AgentEventsConfig } from './agent-events.config';

/** Events POSTed at once per process; the rest wait for the next round. */
const BATCH = 16;
const POLL_MS = 500;
const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60_000;
/** The agent's answer is not read beyond this. */
const MAX_RESPONSE_BYTES = 64 * 1024;

interface Claimed {
  id: string;
  payload: Record<string, unknown>;
  attempts: number;
  created_at: Date;
}

/** Signs an event's request as Standard Webhooks asks (receivers verify with its libraries). */
export interface EventSigner {
  /** The `webhook-signature` header of this id, time and body. */
  sign(id: string, at: Date, body: string): string;
}

/**
 * A `whsec_` secret is the Standard Webhooks form (base64 key); any other string is used as it
 * is (its UTF-8 bytes are the key), so an operator can pick a passphrase. The signature is
 * `v1,` and the base64 HMAC-SHA256 of `id.seconds.body`, computed with node:crypto: the
 * `standardwebhooks` package signs with a SHA-256 written in JavaScript, 2% of a process's CPU
 * while it sent 2,500 events a second (docs/benchmarks.md). Tests verify with that package.
 */
export function signerFor(secret: string): EventSigner {
  // A KeyObject, prepared once: on Node 24 a raw Buffer key costs a caught throw per HMAC.
  const key = createSecretKey(
    secret.startsWith('whsec_')
      ? Buffer.from(secret.slice('whsec_'.length), 'base64')
      : Buffer.from(secret, 'utf8'),
  );
  return {
    sign: (id, at, body) =>
      `v1,${createHmac('sha256', key)
        .update(`${id}.${Math.floor(at.getTime() / 1000)}.${body}`)
        .digest('base64')}`,
  };
}

/** The Standard Webhooks id of an event: the same on every retry, so receivers can de-duplicate. */
export const webhookId = (eventId: string) => `msg_${eventId}`;

/**
 * POSTs the agent_events outbox to AGENT_EVENTS_URL, signed per Standard Webhooks, until a 2xx:
 * every replica claims due events (SKIP LOCKED, with a lease that outlives one POST, so a crashed
 * claimant's events are taken again), retries with backoff, and gives up after
 * AGENT_EVENTS_MAX_AGE_MS. At least once; receivers de-duplicate by `webhook-id`.
 */
@Injectable()
export class AgentEventsSender implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AgentEventsSender.name);
  private readonly owner = randomUUID();
  private agent?: Agent;
  private signer?: EventSigner;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private lastPrune = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AGENT_EVENTS_CONFIG) private readonly config: AgentEventsConfig,
    private readonly clock: Clock,
    metrics: Metrics,
  ) {
    metrics.gauge(
      'agentline_agent_events',
      'Agent events not yet delivered (pending), and given up after AGENT_EVENTS_MAX_AGE_MS (failed, until pruned).',
      ['state'],
      async (gauge) => {
        const [counts] = (await this.dataSource.query(
          `SELECT count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS NULL) AS pending,
                  count(*) FILTER (WHERE failed_at IS NOT NULL) AS failed
             FROM agent_events`,
        )) as { pending: string; failed: string }[];
        gauge.set({ state: 'pending' }, Number(counts.pending));
        gauge.set({ state: 'failed' }, Number(counts.failed));
      },
    );
  }

  onApplicationBootstrap(): void {
    const target = this.config.target;
    if (!target) return;
    this.signer = signerFor(target.secret);
    this.agent = keepAliveAgent({
      connections: BATCH,
      timeoutMs: this.config.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    this.timer = setInterval(() => void this.deliverDue(), POLL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    await this.agent?.close();
  }

  /** One round: claims what is due and POSTs it; a round already running is not doubled. */
  deliverDue(): Promise<void> {
    this.running ??= this.round()
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'agent events could not be read; trying again'),
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async round(): Promise<void> {
    while (!this.stopped) {
      const claimed = await this.claim();
      if (claimed.length === 0) break;
      const failures = await Promise.all(claimed.map((event) => this.post(event)));
      // The round's deliveries recorded in one statement (one commit), its failures one by one.
      await this.recordDelivered(claimed.filter((_, index) => failures[index] === undefined))
        .then(() =>
          Promise.all(
            claimed.map((event, index) => {
              const error = failures[index];
              return error === undefined ? undefined : this.recordFailure(event, error);
            }),
          ),
        )
        .catch((failure: unknown) =>
          this.logger.warn({ err: failure }, 'could not record agent events'),
        );
    }
    const now = this.clock.now();
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.dataSource.query(
        `DELETE FROM agent_events
          WHERE (delivered_at IS NOT NULL AND delivered_at < $1) OR (failed_at IS NOT NULL AND failed_at < $1)`,
        [toIso(now - RETENTION_MS)],
      );
    }
  }

  /** The lease covers one POST and its recording, with room to spare. */
  private async claim(): Promise<Claimed[]> {
    const leaseMs = this.config.timeoutMs * 2 + 5_000;
    return returnedRows<Claimed>(
      await this.dataSource.query(
        `UPDATE agent_events e
            SET lease_owner = $1,
                lease_expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000),
                attempts = e.attempts + 1
          WHERE e.id IN (
                SELECT id FROM agent_events
                 WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $2
                   AND (lease_expires_at IS NULL OR lease_expires_at < clock_timestamp())
                 ORDER BY next_attempt_at LIMIT $4
                 FOR UPDATE SKIP LOCKED)
      RETURNING e.id, e.payload, e.attempts, e.created_at`,
        [this.owner, toIso(this.clock.now()), leaseMs, BATCH],
      ),
    );
  }

  /** POSTs one event; what went wrong, if anything (recorded by the round). */
  private async post(event: Claimed): Promise<string | undefined> {
    const target = this.config.target as { url: string };
    const body = JSON.stringify(event.payload);
    const now = this.clock.now();
    const id = webhookId(event.id);
    let error: string | undefined;
    try {
      const url = new URL(target.url);
      const response = await (this.agent as Agent).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'agentline',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now / 1000)),
          'webhook-signature': (this.signer as EventSigner).sign(id, new Date(now), body),
        },
        body,
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      await response.body.dump();
      if (response.statusCode < 200 || response.statusCode >= 300) {
        error = `the endpoint answered HTTP ${response.statusCode}`;
      }
    } catch (failure) {
      const described = describeOutboundError(failure);
      error = described.timedOut
        ? `no answer within ${this.config.timeoutMs} ms`
        : `the endpoint could not be reached: ${described.code ?? described.message}`;
    }
    return error;
  }

  /** A round's deliveries in one statement; if it fails, their leases run out and they are sent again. */
  private async recordDelivered(events: readonly Claimed[]): Promise<void> {
    if (events.length === 0) return;
    await this.dataSource.query(
      `UPDATE agent_events SET delivered_at = $3, last_error = NULL, lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ANY($1::uuid[]) AND lease_owner = $2`,
      [events.map((event) => event.id), this.owner, toIso(this.clock.now())],
    );
  }

  private async recordFailure(event: Claimed, error: string): Promise<void> {
    const now = this.clock.now();
    const giveUp = now - new Date(event.created_at).getTime() >= this.config.maxAgeMs;
    if (giveUp) {
      this.logger.error(
        { eventId: event.id, attempts: event.attempts, error },
        'an agent event was given up after AGENT_EVENTS_MAX_AGE_MS',
      );
    }
    await this.dataSource.query(
      `UPDATE agent_events
          SET next_attempt_at = $3, last_error = $4, failed_at = $5, lease_owner = NULL, lease_expires_at = NULL
        WHERE id = $1 AND lease_owner = $2`,
      [
        event.id,
        this.owner,
        toIso(now + retryDelayMs(event.attempts)),
        error,
        giveUp ? toIso(now) : null,
      ],
    );
  }
}
