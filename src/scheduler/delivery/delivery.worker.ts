import { Inject, Injectable, Logger } from '@nestjs/common';
import { ChannelsService, WhatsappCredentials } from '../../channels/channels.service';
import { GraphApiClient, SendOutcome } from '../../channels/graph-api/graph-api.client';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { retryDelayMs } from './backoff';
import { ClaimedDelivery, DeliveryOutbox, DeliveryOutcome } from './delivery-outbox';
import { ComposeError, MessageComposer } from './message-composer';
import { OutcomeRecorder } from './outcome-recorder';

type Credentials = Map<string, WhatsappCredentials>;

/**
 * Sends what the outbox holds: keeps up to DELIVERY_CONCURRENCY sends in flight, claiming rows only
 * when a sender is free, so every claimed row starts at once and its lease only has to cover one
 * send. Each outcome is durable before its sender moves on.
 */
@Injectable()
export class DeliveryWorker {
  private readonly logger = new Logger(DeliveryWorker.name);
  /** Claimed by this process and not yet recorded: given back on shutdown. */
  private readonly unrecorded = new Set<string>();

  constructor(
    private readonly outbox: DeliveryOutbox,
    private readonly channels: ChannelsService,
    private readonly graph: GraphApiClient,
    private readonly composer: MessageComposer,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Delivers until nothing is due (or `shouldStop`); returns how many deliveries it took. */
  async deliverUntilIdle(owner: string, shouldStop: () => boolean): Promise<number> {
    const { concurrency, leaseMs, channelRateLimitPerSecond } = this.config.delivery;
    const recorder = new OutcomeRecorder(this.outbox, owner, () => this.clock.now());
    const inFlight = new Set<Promise<void>>();
    // Claim again once a quarter of the senders are free: fewer, larger claims under load.
    const refill = Math.max(1, Math.floor(concurrency / 4));
    let taken = 0;
    while (!shouldStop()) {
      const free = concurrency - inFlight.size;
      if (free < refill) {
        await Promise.race(inFlight);
        continue;
      }
      const claimed = await this.outbox.claim({
        owner,
        now: this.clock.now(),
        limit: free,
        leaseMs,
        ratePerSecond: channelRateLimitPerSecond,
      });
      if (claimed.length === 0) {
        if (inFlight.size === 0) break;
        await Promise.race(inFlight);
        continue;
      }
      taken += claimed.length;
      claimed.forEach((delivery) => this.unrecorded.add(delivery.id));
      const credentials = await this.channels.whatsappCredentials([
        ...new Set(claimed.map((delivery) => delivery.channelId)),
      ]);
      for (const delivery of claimed) {
        const sending: Promise<void> = this.send(
          delivery,
          credentials,
          recorder,
          shouldStop,
        ).finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
    }
    await Promise.allSettled(inFlight);
    return taken;
  }

  /** Gives back every claim this process has not recorded (shutdown). */
  async releaseUnrecorded(owner: string): Promise<void> {
    const ids = [...this.unrecorded];
    await this.outbox.release(owner, ids, this.clock.now());
    this.unrecorded.clear();
  }

  private async send(
    delivery: ClaimedDelivery,
    credentials: Credentials,
    recorder: OutcomeRecorder,
    shouldStop: () => boolean,
  ): Promise<void> {
    try {
      const outcome = await this.deliver(delivery, credentials, shouldStop);
      if (!outcome) return; // stopping: not sent, given back on shutdown
      await recorder.record(outcome);
      this.unrecorded.delete(delivery.id);
    } catch (error) {
      // The outcome could not be written even after retries: the lease runs out and the row is
      // taken again, as after a crash.
      this.logger.error(
        { err: error, deliveryId: delivery.id },
        'could not record a delivery outcome',
      );
    }
  }

  private async deliver(
    delivery: ClaimedDelivery,
    credentials: Credentials,
    shouldStop: () => boolean,
  ): Promise<DeliveryOutcome | undefined> {
    const channel = credentials.get(delivery.channelId);
    if (!channel || channel.status !== 'active') {
      return this.failed(
        delivery,
        'channel_inactive',
        'The WhatsApp channel is inactive; update its access_token.',
      );
    }
    if (channel.accessToken === undefined) {
      return this.failed(
        delivery,
        'channel_credentials_unreadable',
        "The channel's access token cannot be decrypted with the configured ENCRYPTION_KEY(s).",
      );
    }
    let body: string;
    try {
      body = await this.composer.compose({
        followUpId: delivery.followUpId,
        prompt: delivery.prompt,
        title: delivery.title,
        description: delivery.description,
        phone: delivery.phone,
        occurrenceAt: delivery.occurrenceAt,
      });
    } catch (error) {
      const failure =
        error instanceof ComposeError
          ? error
          : new ComposeError('compose_failed', 'The message could not be written.');
      return this.retryOrFail(delivery, failure.code, failure.message);
    }
    if (body.length === 0) {
      return this.failed(delivery, 'empty_message', 'The prompt produced an empty message.');
    }
    if (shouldStop()) return undefined;
    const sent: SendOutcome = await this.graph.sendText({
      numberId: channel.numberId,
      accessToken: channel.accessToken,
      to: delivery.phone,
      body,
    });
    switch (sent.kind) {
      case 'sent':
        return {
          id: delivery.id,
          at: this.clock.now(),
          status: 'sent',
          waMessageId: sent.messageId,
        };
      case 'transient':
        return this.retryOrFail(delivery, sent.code, sent.message, sent.retryAfterMs);
      case 'permanent':
        return this.failed(delivery, sent.code, sent.message);
      case 'unauthorized':
        await this.deactivate(delivery.channelId, channel, sent.message);
        return this.failed(delivery, sent.code, sent.message);
    }
  }

  /** Meta refused the token: the channel goes inactive, and this process stops using it at once. */
  private async deactivate(
    channelId: string,
    channel: WhatsappCredentials,
    reason: string,
  ): Promise<void> {
    if (channel.status !== 'active') return;
    channel.status = 'inactive';
    await this.outbox.deactivateChannel(channelId, channel.sealedToken, this.clock.now(), reason);
    this.logger.warn({ channelId }, 'Meta refused the channel token; channel is now inactive');
  }

  private retryOrFail(
    delivery: ClaimedDelivery,
    code: string,
    message: string,
    retryAfterMs?: number,
  ): DeliveryOutcome {
    if (delivery.attempts >= this.config.delivery.maxAttempts) {
      return this.failed(
        delivery,
        code,
        `${message} (gave up after ${delivery.attempts} attempts)`,
      );
    }
    const now = this.clock.now();
    return {
      id: delivery.id,
      at: now,
      status: 'pending',
      retryAt: now + retryDelayMs(delivery.attempts, retryAfterMs),
      errorCode: code,
      errorMessage: message,
    };
  }

  private failed(delivery: ClaimedDelivery, code: string, message: string): DeliveryOutcome {
    return {
      id: delivery.id,
      at: this.clock.now(),
      status: 'failed',
      errorCode: code,
      errorMessage: message,
    };
  }
}
