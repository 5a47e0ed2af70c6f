import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { databaseRetryDelayMs } from '../../common/backoff';
import { DatabaseAvailability } from '../../database/database-availability';
import { OAuth2GrantEntity } from '../entities/oauth2-grant.entity';

/**
 * Failures that are not an outage (the database answered and refused) are tried this many times:
 * about 7 s. Through an outage the write is retried for as long as the process runs.
 */
const MAX_REFUSED_ATTEMPTS = 10;

export interface RefreshedGrant {
  owner: { organizationId: string; agentId: string; providerId: string };
  grantId: string;
  /** The sealed access token the row held when the refresh began: the write applies over it only. */
  replaces: string;
  /** The new access token in clear, answered from memory while the write is retried. */
  accessToken: string;
  expiresAt: Date | null;
  /** The columns to write, sealed once, so that every attempt writes the same ciphertexts. */
  columns: QueryDeepPartialEntity<OAuth2GrantEntity>;
}

const keyOf = (owner: RefreshedGrant['owner']): string =>
  JSON.stringify([owner.organizationId, owner.agentId, owner.providerId]);

/**
 * Makes what a refresh issued durable. A provider that rotates refresh tokens has consumed the old
 * one: if the new one is not stored, the grant is dead. So a write that fails (the database went
 * away as the provider answered) is retried with backoff, and meanwhile this process answers the
 * new access token from memory and never refreshes that grant from the stale row.
 *
 * The write is one conditional UPDATE: it applies only while the row still holds the access token
 * it replaces, so a commit that went through unseen is not written twice, and a new authorization
 * that replaced the grant meanwhile is not overwritten.
 */
@Injectable()
export class OAuth2RefreshWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger(OAuth2RefreshWriter.name);
  private readonly held = new Map<string, RefreshedGrant>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly availability: DatabaseAvailability,
  ) {}

  /** Tokens this process holds and has not stored yet, for the grant. */
  pending(owner: RefreshedGrant['owner']): RefreshedGrant | undefined {
    return this.held.get(keyOf(owner));
  }

  /**
   * Stores the refreshed tokens with `db` (the refresh's own transaction, which holds the row
   * lock). The tokens are held in memory from now until they are known to be stored: call
   * `committed` after the transaction commits, or `retry` if it failed.
   */
  async write(db: EntityManager, refreshed: RefreshedGrant): Promise<void> {
    this.held.set(keyOf(refreshed.owner), refreshed);
    await this.update(db, refreshed);
  }

  committed(refreshed: RefreshedGrant): void {
    this.forget(refreshed);
  }

  /** Keeps trying to store the tokens in the background; `pending` answers them meanwhile. */
  retry(refreshed: RefreshedGrant, firstError: unknown): void {
    if (!this.availability.reportFailure(firstError)) {
      this.logger.error(
        { err: firstError, provider: refreshed.owner.providerId, grant: refreshed.grantId },
        'could not store refreshed OAuth2 tokens; keeping them and trying again',
      );
    }
    void this.retryUntilStored(refreshed);
  }

  beforeApplicationShutdown(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const refreshed of this.held.values()) this.lost(refreshed, 'the process stopped');
    this.held.clear();
  }

  private async retryUntilStored(refreshed: RefreshedGrant): Promise<void> {
    let refused = 0;
    for (let attempt = 0; !this.stopped; attempt++) {
      await this.sleep(databaseRetryDelayMs(attempt));
      if (this.stopped || this.pending(refreshed.owner) !== refreshed) return;
      try {
        await this.update(this.dataSource.manager, refreshed);
        this.forget(refreshed);
        this.logger.log(
          { provider: refreshed.owner.providerId, grant: refreshed.grantId, attempts: attempt + 2 },
          'stored refreshed OAuth2 tokens',
        );
        return;
      } catch (error) {
        // An outage is logged once by DatabaseAvailability and waited out.
        if (this.availability.reportFailure(error)) continue;
        if (++refused >= MAX_REFUSED_ATTEMPTS) {
          this.forget(refreshed);
          this.lost(refreshed, `the database refused ${refused} times`);
          return;
        }
      }
    }
  }

  private async update(db: EntityManager, refreshed: RefreshedGrant): Promise<void> {
    const result = await db.update(
      OAuth2GrantEntity,
      {
        id: refreshed.grantId,
        organizationId: refreshed.owner.organizationId,
        status: 'active',
        accessTokenEncrypted: refreshed.replaces,
      },
      refreshed.columns,
    );
    if (result.affected === 0) {
      // Either an earlier attempt committed although it seemed to fail, or the grant was replaced
      // (a new authorization), failed or deleted meanwhile: the row is newer than these tokens.
      this.logger.log(
        { provider: refreshed.owner.providerId, grant: refreshed.grantId },
        'refreshed OAuth2 tokens not written: the grant row changed meanwhile',
      );
    }
  }

  private forget(refreshed: RefreshedGrant): void {
    const key = keyOf(refreshed.owner);
    if (this.held.get(key) === refreshed) this.held.delete(key);
  }

  private lost(refreshed: RefreshedGrant, why: string): void {
    this.logger.error(
      { provider: refreshed.owner.providerId, grant: refreshed.grantId },
      `refreshed OAuth2 tokens were never stored (${why}); if the provider rotates refresh tokens, the grant needs a new authorization`,
    );
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}
