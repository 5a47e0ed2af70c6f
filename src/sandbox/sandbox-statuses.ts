import { Clock } from '../common/clock';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { ProviderAccount } from '../channels';
import {
  messangerDelivery,
  messangerNotification,
  messangerRead,
  PricingCategory,
  UNDELIVERABLE,
  whatsappNotification,
  whatsappStatus,
} from './meta-notifications';
import { SandboxConversations, SandboxMessage, SandboxMessageState } from './sandbox-conversations';
import { SANDBOX_CONFIG, SandboxConfig } from './sandbox.config';
import { SandboxWebhooks } from './sandbox-webhooks';

/** A client number (or PSID) ending in these digits never receives anything (docs/sandbox.md). */
export const FAILING_SUFFIX = '0000';
export const isFailingClient = (client: string): boolean => client.endsWith(FAILING_SUFFIX);

type Step = Extract<SandboxMessageState, 'sent' | 'delivered' | 'read' | 'failed'>;

/**
 * What happens to a message Meta accepted, told as Meta tells it: WhatsApp's `sent`, `delivered`
 * and `read` statuses (or `failed` with 131026 for a failing number), Messenger's delivery and
 * read events; each SANDBOX_STATUS_DELAY_MS after the last, posted to the channel's webhook and
 * moved on in the conversations.
 */
@Injectable()
export class SandboxStatuses implements OnApplicationShutdown {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    private readonly conversations: SandboxConversations,
    private readonly webhooks: SandboxWebhooks,
    private readonly clock: Clock,
  ) {}

  follow(account: ProviderAccount, message: SandboxMessage, category: PricingCategory): void {
    const steps: Step[] =
      account.kind === 'whatsapp' && isFailingClient(message.client)
        ? ['failed']
        : ['sent', 'delivered', 'read'];
    this.next(account, message, category, steps);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private next(
    account: ProviderAccount,
    message: SandboxMessage,
    category: PricingCategory,
    [step, ...rest]: Step[],
  ): void {
    if (step === undefined || this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.tell(account, message, category, step).then(() =>
        this.next(account, message, category, rest),
      );
    }, this.config.statusDelayMs);
    this.timers.add(timer);
  }

  private async tell(
    account: ProviderAccount,
    message: SandboxMessage,
    category: PricingCategory,
    step: Step,
  ): Promise<void> {
    const at = this.clock.now();
    this.conversations.advance(
      message.id,
      step,
      at,
      step === 'failed'
        ? {
            code: UNDELIVERABLE.code,
            title: UNDELIVERABLE.title,
            message: UNDELIVERABLE.error_data.details,
          }
        : undefined,
    );
    const payload = this.notification(account, message, category, step, at);
    if (payload) await this.webhooks.post(account, payload);
  }

  private notification(
    account: ProviderAccount,
    message: SandboxMessage,
    category: PricingCategory,
    step: Step,
    at: number,
  ): Record<string, unknown> | undefined {
    if (account.kind === 'whatsapp') {
      return whatsappNotification(account.senderId, {
        statuses: [whatsappStatus(message.id, step, { recipient: message.client, at, category })],
      });
    }
    // Messenger tells deliveries and reads only; a message it accepted is sent.
    if (step === 'delivered') {
      return messangerNotification(account.senderId, message.client, at, [
        messangerDelivery(message.id, at),
      ]);
    }
    if (step === 'read') {
      return messangerNotification(account.senderId, message.client, at, [messangerRead(at)]);
    }
    return undefined;
  }
}
