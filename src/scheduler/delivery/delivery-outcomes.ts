import type { SendOutcome } from '../../channels';
import { retryDelayMs } from '../../common/backoff';
import type { MessageType } from '../entities/delivery.entity';
import type { ClaimedDelivery, DeliveryOutcome } from './delivery-outbox';

/**
 * The one builder of a claimed delivery's outcome: every exit of the delivery worker goes through
 * it, so the attempt number, the time and the retry rule cannot differ between two exits.
 */
export class DeliveryOutcomes {
  constructor(
    private readonly now: () => number,
    /** DELIVERY_MAX_ATTEMPTS: a retryable failure at this attempt fails for good. */
    private readonly maxAttempts: number,
  ) {}

  /** `calledAt`: when the call that sent it started (its `sent_at`); else now. */
  sent(
    delivery: ClaimedDelivery,
    providerMessageId: string | null,
    messageType: MessageType,
    calledAt?: number,
  ): DeliveryOutcome {
    const outcome = this.of(delivery);
    return {
      ...outcome,
      status: 'sent',
      providerMessageId,
      messageType,
      sentAt: calledAt ?? outcome.at,
    };
  }

  /** Not sent, and never will be (the recipient opted out). */
  skipped(delivery: ClaimedDelivery, code: string, message: string): DeliveryOutcome {
    return { ...this.of(delivery), status: 'skipped', errorCode: code, errorMessage: message };
  }

  failed(delivery: ClaimedDelivery, code: string, message: string): DeliveryOutcome {
    return { ...this.of(delivery), status: 'failed', errorCode: code, errorMessage: message };
  }

  /** Pending again after a back-off (or `retryAfterMs`), unless this was the last attempt. */
  retryOrFail(
    delivery: ClaimedDelivery,
    code: string,
    message: string,
    retryAfterMs?: number,
  ): DeliveryOutcome {
    if (delivery.attempts >= this.maxAttempts) {
      return this.failed(
        delivery,
        code,
        `${message} (gave up after ${delivery.attempts} attempts)`,
      );
    }
    const outcome = this.of(delivery);
    return {
      ...outcome,
      status: 'pending',
      retryAt: outcome.at + retryDelayMs(delivery.attempts, retryAfterMs),
      errorCode: code,
      errorMessage: message,
    };
  }

  /** Text refused outside the messaging window: once more at once, as the template. */
  resendAsTemplate(delivery: ClaimedDelivery, code: string, message: string): DeliveryOutcome {
    const outcome = this.of(delivery);
    return {
      ...outcome,
      status: 'pending',
      retryAt: outcome.at,
      errorCode: code,
      errorMessage: message,
      templateRequired: true,
    };
  }

  /**
   * What the channel's answer means for the delivery. `templateFallback`: the text may still go
   * as a template (the delivery has one and did not just send it). `calledAt`: when the call
   * started.
   */
  ofSend(
    delivery: ClaimedDelivery,
    messageType: MessageType,
    sent: SendOutcome,
    templateFallback: boolean,
    calledAt?: number,
  ): DeliveryOutcome {
    switch (sent.kind) {
      case 'sent':
        return this.sent(delivery, sent.messageId, messageType, calledAt);
      case 'transient':
        return this.retryOrFail(delivery, sent.code, sent.message, sent.retryAfterMs);
      case 'resend_as_template':
        return templateFallback
          ? this.resendAsTemplate(delivery, sent.code, sent.message)
          : this.failed(delivery, sent.code, sent.message);
      // token_rejected: the send has deactivated the channel and failed its pending deliveries.
      case 'permanent':
      case 'token_rejected':
        return this.failed(delivery, sent.code, sent.message);
    }
  }

  private of(delivery: ClaimedDelivery): { id: string; attempt: number; at: number } {
    return { id: delivery.id, attempt: delivery.attempts, at: this.now() };
  }
}
