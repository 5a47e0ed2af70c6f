import { Injectable, Logger } from '@nestjs/common';
import { request } from 'undici';
import { metaSignature, ProviderAccount } from '../channels';
import { describeOutboundError } from '../common/outbound-http';
import { SandboxLoopback } from './sandbox-loopback';

/** A webhook that takes longer than this is treated as refused (Meta waits about as long). */
const WEBHOOK_TIMEOUT_MS = 10_000;

/** What the channel's webhook answered: its HTTP status, or no answer at all. */
export interface WebhookAnswer {
  accepted: boolean;
  status?: number;
  /** Why it was not accepted, in a sentence. */
  reason?: string;
}

/**
 * Posts a notification to a channel's own webhook URL as Meta does: the JSON body signed with
 * X-Hub-Signature-256 (HMAC-SHA256 with the app secret that verifies the channel), over HTTP to
 * the service's own address, so the real verification and inbox take it.
 */
@Injectable()
export class SandboxWebhooks {
  private readonly logger = new Logger('Sandbox');

  constructor(private readonly loopback: SandboxLoopback) {}

  async post(account: ProviderAccount, payload: Record<string, unknown>): Promise<WebhookAnswer> {
    const raw = JSON.stringify(payload);
    const url = `${this.loopback.origin()}/v1/webhooks/${account.kind}/${account.channelId}`;
    try {
      const { statusCode, body } = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          // No secret verifies the channel (its own cannot be decrypted): sent unsigned, refused.
          ...(account.signingSecret && {
            'x-hub-signature-256': metaSignature(raw, account.signingSecret),
          }),
        },
        body: raw,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      await body.dump();
      if (statusCode === 200) return { accepted: true, status: statusCode };
      this.logger.warn(
        { channelId: account.channelId, status: statusCode },
        'the channel’s webhook refused a sandbox notification',
      );
      return {
        accepted: false,
        status: statusCode,
        reason: `The channel's webhook answered HTTP ${statusCode}`,
      };
    } catch (error) {
      const { message } = describeOutboundError(error);
      this.logger.warn(
        { channelId: account.channelId, reason: message },
        'a sandbox notification could not reach the channel’s webhook',
      );
      return { accepted: false, reason: `The channel's webhook cannot be reached: ${message}` };
    }
  }
}
