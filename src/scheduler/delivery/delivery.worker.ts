import { Inject, Injectable, Logger } from '@nestjs/common';
import { ChannelsService, WhatsappCredentials } from '../../channels/channels.service';
import { GraphApiClient, SendOutcome } from '../../channels/graph-api/graph-api.client';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { retryDelayMs } from './backoff';
import { ClaimedDelivery, DeliveryOutbox, DeliveryOutcome } from './delivery-outbox';
import { OutcomeRecorder } from './outcome-recorder';
import { ComposeError, MessageComposer } from './message-composer';

/**
 * Claims pending deliveries, writes and sends each message through its channel's WhatsApp number,
 * and records every outcome. At most `DELIVERY_CONCURRENCY` sends are in flight per process.
 */
@Injectable()
export class DeliveryWorker {
  private readonly logger = new Logger(DeliveryWorker.name);
  /** Claimed by this process and not yet recorded: released on shutdown. */
  private readonly unrecorded = new Set<string>();

  constructor(
    private readonly outbox: DeliveryOutbox,
    private readonly channels: ChannelsService,
    private readonly graph: GraphApiClient,
    private readonly composer: MessageComposer,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Claims and sends one batch; returns how many deliveries it claimed (0: nothing is due). */
  async runBatch(owner: string, shouldStop: () => boolean): Promise<number> {
    const { concurrency, leaseMs, channelRateLimitPerSecond } = this.config.delivery;
    const claimed = await this.outbox.claim({
      owner,
      now: this.clock.now(),
      limit: concurrency * 4,
      leaseMs,
      ratePerSecond: channelRateLimitPerSecond,
    });
    if (claimed.length === 0) return 0;
    claimed.forEach((delivery) => this.unrecorded.add(delivery.id));

    const credentials = await this.channels.whatsappCredentials([
      ...new Set(claimed.map((d) => d.channelId)),
    ]);
    const recorder = new OutcomeRecorder(this.outbox, owner, () => this.clock.now());
    const deactivated = new Set<string>();

    let next = 0;
    const sender = async () => {
      while (next < claimed.length && !shouldStop()) {
        const delivery = claimed[next++];
        const { outcome, unauthorized } = await this.deliver(
          delivery,
          credentials.get(delivery.channelId),
        );
        await recorder.record(outcome);
        this.unrecorded.delete(delivery.id);
        if (unauthorized && !deactivated.has(delivery.channelId)) {
          deactivated.add(delivery.channelId);
          await this.outbox.deactivateChannel(delivery.channelId, this.clock.now(), unauthorized);
          this.logger.warn(
            { channelId: delivery.channelId },
            'Meta refused the channel token; channel is now inactive',
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, sender));
    return claimed.length;
  }

  /** Gives back every claim this process has not recorded (shutdown). */
  async releaseUnrecorded(owner: string): Promise<void> {
    const ids = [...this.unrecorded];
    await this.outbox.release(owner, ids, this.clock.now());
    this.unrecorded.clear();
  }

  private async deliver(
    delivery: ClaimedDelivery,
    channel: WhatsappCredentials | undefined,
  ): Promise<{ outcome: DeliveryOutcome; unauthorized?: string }> {
    if (!channel || channel.status !== 'active') {
      return {
        outcome: this.failed(
          delivery,
          'channel_inactive',
          'The WhatsApp channel is inactive; update its access_token.',
        ),
      };
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
      const composeError =
        error instanceof ComposeError
          ? error
          : new ComposeError('compose_failed', 'The message could not be written.');
      return { outcome: this.retryOrFail(delivery, composeError.code, composeError.message) };
    }
    if (body.length === 0) {
      return {
        outcome: this.failed(delivery, 'empty_message', 'The prompt produced an empty message.'),
      };
    }
    const sent: SendOutcome = await this.graph.sendText({
      numberId: channel.numberId,
      accessToken: channel.accessToken,
      to: delivery.phone,
      body,
    });
    switch (sent.kind) {
      case 'sent':
        return {
          outcome: {
            id: delivery.id,
            at: this.clock.now(),
            status: 'sent',
            waMessageId: sent.messageId,
          },
        };
      case 'transient':
        return { outcome: this.retryOrFail(delivery, sent.code, sent.message, sent.retryAfterMs) };
      case 'permanent':
        return { outcome: this.failed(delivery, sent.code, sent.message) };
      case 'unauthorized':
        return {
          outcome: this.failed(delivery, sent.code, sent.message),
          unauthorized: sent.message,
        };
    }
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
