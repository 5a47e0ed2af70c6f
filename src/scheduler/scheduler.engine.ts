import { setImmediate as nextTurn } from 'node:timers/promises';
import { withLogContext } from '../common/logging/log-context';
import { hostname } from 'node:os';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { DatabaseAvailability } from '../database/database-availability';
import { SessionLock } from '../database/session-lock';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { claimKey, DeliveryOutbox } from './delivery/delivery-outbox';
import { DeliveryWorker } from './delivery/delivery.worker';
import { DispatchLimits, FollowUpDispatcher } from './dispatch/follow-up-dispatcher';
import { isEmbeddedDataSource } from '../database/data-source';
import { SCHEDULER_CONFIG, SchedulerConfig } from './scheduler.config';

const TICK = 'follow-up-tick';
/**
 * PostgreSQL: up to 500 follow-ups or 2,000 numbers per dispatch transaction, one INSERT each.
 * The embedded database runs every statement in this thread, so there a batch is smaller and its
 * INSERTs are cut in slices with a turn of the event loop between them: the loop never waits
 * behind more than one slice (issue 23: dispatching 10,000 follow-ups held the loop for 5 s). A
 * request that needs the database still waits for the batch's transaction (the embedded database
 * has one connection): at most 1,000 numbers, or one follow-up's list when it is longer.
 */
const DISPATCH_LIMITS: DispatchLimits = {
  followUps: 500,
  numbers: 2_000,
  rowsPerStatement: Number.POSITIVE_INFINITY,
};
const EMBEDDED_DISPATCH_LIMITS: DispatchLimits = {
  followUps: 100,
  numbers: 1_000,
  rowsPerStatement: 250,
  between: nextTurn,
};
const PRUNE_EVERY_TICKS = 60;

/**
 * Drives the follow-up work in this process: a tick every SCHEDULER_TICK_MS (and sooner, when a
 * follow-up is due before the next tick or was just created here) dispatches due follow-ups into
 * the outbox and starts the delivery worker. Every replica runs it; the database decides who does
 * what (SKIP LOCKED), so nothing runs twice.
 */
@Injectable()
export class SchedulerEngine implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SchedulerEngine.name);
  /**
   * Names this process on the rows it leases and the attempts it makes (opaque: clients see it;
   * its host and pid are in scheduler_processes and the start-up log line).
   */
  private readonly owner = uuidv7(Date.now());
  /** Held while this process's own database session lives; see SessionLock. */
  private readonly sessionLock: SessionLock;
  private stopping = false;
  /** True once this process's heartbeat row exists: it claims nothing before. */
  private registered = false;
  private heartbeatTimer?: NodeJS.Timeout;
  /** performance.now() of the last beat that was written. */
  private lastBeatAt = 0;
  /** Beats are failing for a reason other than an outage (logged once per streak). */
  private beatFailing = false;
  private beating?: Promise<void>;
  private ticking?: Promise<void>;
  private tickAgain = false;
  private delivering?: Promise<void>;
  private deliverAgain = false;
  private wakeTimer?: NodeJS.Timeout;
  private ticks = 0;
  /** When a tick last ran to its end (performance.now()); readiness looks at it. */
  private lastTickAt?: number;
  private readonly dispatchLimits: DispatchLimits;

  constructor(
    private readonly dispatcher: FollowUpDispatcher,
    private readonly worker: DeliveryWorker,
    private readonly outbox: DeliveryOutbox,
    private readonly registry: SchedulerRegistry,
    private readonly clock: Clock,
    @Inject(SCHEDULER_CONFIG) private readonly config: SchedulerConfig,
    private readonly availability: DatabaseAvailability,
    @InjectDataSource() dataSource: DataSource,
  ) {
    this.sessionLock = new SessionLock(dataSource, this.owner);
    this.dispatchLimits = isEmbeddedDataSource(dataSource)
      ? EMBEDDED_DISPATCH_LIMITS
      : DISPATCH_LIMITS;
  }

  private get enabled(): boolean {
    return this.config.enabled;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.logger.log({ processId: this.owner, host: hostname() }, 'scheduler process started');
    this.heartbeatTimer = setInterval(() => void this.beat(), this.config.delivery.heartbeatMs);
    this.registry.addInterval(
      TICK,
      setInterval(() => this.wake(), this.config.tickMs),
    );
    this.wake();
  }

  /**
   * Beats this process's heartbeat (other processes take its claims over when it stops) and extends
   * the leases of the deliveries it holds. A failed beat is simply tried at the next interval.
   */
  private beat(): Promise<void> {
    this.beating ??= (async () => {
      const held = this.worker.heldClaims();
      try {
        // Beside the beat, never before it: a connection that takes long to open must not stop
        // the beat (the others would take this process's calls over). Without the lock the
        // process still works, but never judges by sessions (reapAbandoned).
        void this.sessionLock.hold().catch((error: unknown) => {
          if (!this.availability.reportFailure(error) && !this.beatFailing) {
            this.logger.warn({ reason: String(error) }, 'could not take the session lock');
          }
        });
        const stillHeld = new Set(
          (
            await this.outbox.beat(
              {
                owner: this.owner,
                host: hostname(),
                pid: process.pid,
                leaseMs: this.config.delivery.leaseMs,
                timeoutMs: this.config.delivery.heartbeatTimeoutMs,
              },
              held,
            )
          ).map(claimKey),
        );
        this.registered = true;
        this.lastBeatAt = performance.now();
        this.beatFailing = false;
        this.worker.forgetTakenOver(held.filter((claim) => !stillHeld.has(claimKey(claim))));
      } catch (error) {
        // An outage is logged once by DatabaseAvailability; anything else once until a beat works.
        if (!this.availability.reportFailure(error) && !this.beatFailing) {
          this.logger.error({ err: error }, 'heartbeat failed; the next one retries');
        }
        this.beatFailing = true;
      }
    })().finally(() => (this.beating = undefined));
    return this.beating;
  }

  /**
   * For readiness: whether this process runs the scheduler, and how long ago a tick last ran to
   * its end (undefined before the first one).
   */
  tickState(): { enabled: boolean; sinceLastTickMs?: number; tickMs: number } {
    return {
      enabled: this.enabled,
      sinceLastTickMs:
        this.lastTickAt === undefined ? undefined : performance.now() - this.lastTickAt,
      tickMs: this.config.tickMs,
    };
  }

  /** Runs a tick now (or right after the current one): a follow-up was created or resumed here. */
  wake(): void {
    if (!this.enabled || this.stopping) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    // A tick is the scheduler's own work, even when a request woke it: not logged under its id.
    this.ticking = withLogContext({}, () => this.tick()).finally(() => {
      this.ticking = undefined;
      if (this.tickAgain) {
        this.tickAgain = false;
        this.wake();
      }
    });
  }

  private async tick(): Promise<void> {
    try {
      // The claim only succeeds while this process's own beat is fresh: after a stall (its timer
      // late too), beat first rather than wait for the timer.
      if (
        !this.registered ||
        performance.now() - this.lastBeatAt >= this.config.delivery.heartbeatMs
      ) {
        await this.beat();
      }
      if (!this.registered) return;
      const now = this.clock.now();
      await this.outbox.reapAbandoned(this.owner, now, this.config.delivery.maxAttempts, {
        timeoutMs: this.config.delivery.heartbeatTimeoutMs,
        sessionUnbroken: this.sessionLock.unbroken,
      });
      // Delivery starts with the first dispatched batch and overlaps the rest of a large dispatch.
      for (let more = true; more && !this.stopping;) {
        ({ more } = await this.dispatcher.dispatchBatch(now, this.dispatchLimits));
        this.startDelivery();
        // The embedded database answers within this turn: without a yield, a dispatch of
        // thousands of follow-ups would be one long turn.
        if (more) await nextTurn();
      }
      if (++this.ticks % PRUNE_EVERY_TICKS === 0) {
        await this.outbox.pruneSendWindows();
        await this.outbox.cancelDeletedFollowUpsDeliveries(now);
        await this.outbox.pruneProcesses(this.config.delivery.heartbeatTimeoutMs);
      }
      await this.wakeForEarliestDue();
      this.lastTickAt = performance.now();
    } catch (error) {
      // A database outage is logged once by DatabaseAvailability, not once per tick.
      if (!this.availability.reportFailure(error)) {
        this.logger.error({ err: error }, 'scheduler tick failed; the next tick retries');
      }
    }
  }

  /** Between ticks, wake exactly when the next follow-up is due, so its lag stays small. */
  private async wakeForEarliestDue(): Promise<void> {
    const earliest = await this.dispatcher.earliestDue();
    if (earliest === null || this.stopping) return;
    const delay = earliest - this.clock.now();
    // Already due means another replica is dispatching it (or this tick just did): the interval
    // looks again, instead of re-arming a timer that would spin until that transaction ends.
    if (delay <= 0 || delay >= this.config.tickMs) return;
    clearTimeout(this.wakeTimer);
    this.wakeTimer = setTimeout(() => this.wake(), delay + 1);
  }

  private startDelivery(): void {
    if (this.delivering) {
      this.deliverAgain = true;
      return;
    }
    this.delivering = this.deliverUntilIdle()
      .catch((error: unknown) => {
        if (!this.availability.reportFailure(error)) {
          this.logger.error({ err: error }, 'delivery failed; the next tick retries');
        }
      })
      .finally(() => {
        this.delivering = undefined;
        if (this.deliverAgain && !this.stopping) {
          this.deliverAgain = false;
          this.startDelivery();
        }
      });
  }

  private async deliverUntilIdle(): Promise<void> {
    await this.worker.deliverUntilIdle(this.owner, () => this.stopping);
  }

  /**
   * SIGTERM: stop claiming and start no new call; wait for the calls in flight (each ends within the
   * Graph time-out, which the grace period exceeds) and record their outcomes; give back what was
   * never called; stop beating and remove the heartbeat row. Nothing whose call may have reached
   * Meta is given back (docs/scheduler.md, Shutdown).
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.enabled) return;
    this.stopping = true;
    clearTimeout(this.wakeTimer);
    if (this.registry.doesExist('interval', TICK)) this.registry.deleteInterval(TICK);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>(
      (resolve) => (timer = setTimeout(resolve, this.config.shutdownGraceMs)),
    );
    await Promise.race([
      Promise.all([this.ticking, this.delivering, this.worker.settled()]),
      grace,
    ]);
    clearTimeout(timer);
    try {
      await this.worker.releaseUnstarted(this.owner);
    } catch (error) {
      this.logger.error({ err: error }, 'could not give back unsent deliveries on shutdown');
    }
    clearInterval(this.heartbeatTimer);
    await this.beating;
    try {
      // Still holding rows (their outcome could not be written): the row is left to go stale, so
      // that they are taken over one heartbeat time-out from now.
      if (this.worker.heldClaims().length === 0) await this.outbox.unregister(this.owner);
    } catch (error) {
      this.logger.error({ err: error }, 'could not remove the heartbeat row on shutdown');
    } finally {
      await this.sessionLock.release();
    }
  }
}
