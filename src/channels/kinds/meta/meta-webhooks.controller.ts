import { SkipRateLimit } from '../../../common/http/rate-limit.guard';
import {
  applyDecorators,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../../common/auth/principal';
import { sameSecret } from '../../../common/crypto/same-secret';
import { ProblemException } from '../../../common/http/problem';
import { ApiProblemResponses, ProblemExample } from '../../../common/http/openapi.decorators';
import type { ChannelKind } from '../../channel-transport';
import type { NotificationExample } from '../channel-kind';
import { CHANNELS_CONFIG, ChannelsConfig } from '../../channels.config';
import { isSignedByMeta, isWellFormedSignature } from './meta-signature';
import { Metrics } from '../../../metrics';
import { WebhookChannel, WebhookChannels } from '../../webhooks/webhook-channels';
import { WebhookInbox } from '../../webhooks/webhook-inbox';
import { MESSANGER_NOTIFICATION_EXAMPLE } from '../messanger/messanger.openapi';
import { WHATSAPP_NOTIFICATION_EXAMPLE } from '../whatsapp/whatsapp.openapi';

/** Longer challenges are refused: Meta's are short numbers, and we echo it back verbatim. */
const MAX_CHALLENGE_LENGTH = 256;

const NO_SUCH_CHANNEL: ProblemExample = {
  code: 'forbidden',
  detail: 'This webhook URL belongs to no channel.',
};
const noSuchChannel = () => new ProblemException(NO_SUCH_CHANNEL.code, NO_SUCH_CHANNEL.detail);
/**
 * One answer for every refused handshake, an unknown channel id included: the handshake is
 * public, and a different answer would tell anyone which channel ids exist.
 */
const HANDSHAKE_REFUSED: ProblemExample = {
  code: 'forbidden',
  detail:
    'The handshake needs hub.mode=subscribe, the channel’s verification_token as hub.verify_token, and hub.challenge.',
};
const handshakeRefused = () =>
  new ProblemException(HANDSHAKE_REFUSED.code, HANDSHAKE_REFUSED.detail);
const BAD_SIGNATURE = 'X-Hub-Signature-256 is missing or does not match the body.';
const NO_GLOBAL_SECRET =
  "No META_APP_SECRET is configured, so only a channel's own app_secret can verify a notification: X-Hub-Signature-256 is missing or does not match the body.";

/**
 * Meta calls these: the verification handshake (GET) and notifications (POST), public (no JWT).
 * A notification is only accepted signed with the channel's own app secret, or without one with
 * a META_APP_SECRET, and is stored before the `200`; it is processed from the inbox (WebhookInbox).
 */
@ApiTags('webhooks')
@Public()
// Meta delivers a busy number's traffic from a few addresses: a per-address API limit would turn
// it into 429s and retries. Each request is bounded (1 MiB, one HMAC, one insert).
@SkipRateLimit()
@Controller('v1/webhooks')
export class MetaWebhooksController {
  constructor(
    private readonly channels: WebhookChannels,
    private readonly inbox: WebhookInbox,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    private readonly metrics: Metrics,
  ) {}

  @Get('whatsapp/:channel_id')
  @ApiOperation({
    summary: "Meta's verification handshake (WhatsApp)",
    operationId: 'verifyWhatsappWebhook',
    description:
      "Meta calls it once when the callback URL is saved: `hub.challenge` is echoed when `hub.verify_token` is the channel's `verification_token`.",
  })
  @VerificationDocs()
  async verifyWhatsapp(
    @Param('channel_id') channelId: string,
    @Query() query: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    await this.verify('whatsapp', channelId, query, response);
  }

  @Get('messanger/:channel_id')
  @ApiOperation({
    summary: "Meta's verification handshake (Messenger)",
    operationId: 'verifyMessangerWebhook',
    description:
      "Meta calls it once when the callback URL is saved: `hub.challenge` is echoed when `hub.verify_token` is the channel's `verification_token`.",
  })
  @VerificationDocs()
  async verifyMessanger(
    @Param('channel_id') channelId: string,
    @Query() query: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    await this.verify('messanger', channelId, query, response);
  }

  @Post('whatsapp/:channel_id')
  @HttpCode(200)
  @ApiOperation({
    summary: "Meta's notification (WhatsApp)",
    operationId: 'receiveWhatsappWebhook',
    description:
      "Meta's notifications (messages and statuses), signed with X-Hub-Signature-256. Stored before the 200, then processed by any replica.",
  })
  @NotificationDocs(WHATSAPP_NOTIFICATION_EXAMPLE)
  async receiveWhatsapp(
    @Param('channel_id') channelId: string,
    @Headers('x-hub-signature-256') signature: string | undefined,
    @Req() request: Request,
  ): Promise<void> {
    await this.receive('whatsapp', channelId, signature, request);
  }

  @Post('messanger/:channel_id')
  @HttpCode(200)
  @ApiOperation({
    summary: "Meta's notification (Messenger)",
    operationId: 'receiveMessangerWebhook',
    description:
      "Meta's Messenger notifications (messages, postbacks, reactions, referrals, deliveries, reads), signed with X-Hub-Signature-256. Stored before the 200, then processed by any replica.",
  })
  @NotificationDocs(MESSANGER_NOTIFICATION_EXAMPLE)
  async receiveMessanger(
    @Param('channel_id') channelId: string,
    @Headers('x-hub-signature-256') signature: string | undefined,
    @Req() request: Request,
  ): Promise<void> {
    await this.receive('messanger', channelId, signature, request);
  }

  private async verify(
    kind: ChannelKind,
    channelId: string,
    query: Record<string, unknown>,
    response: Response,
  ): Promise<void> {
    const mode = query['hub.mode'];
    const token = query['hub.verify_token'];
    const challenge = query['hub.challenge'];
    const channel = await this.channels.find(kind, channelId);
    if (
      !channel ||
      mode !== 'subscribe' ||
      typeof token !== 'string' ||
      !sameSecret(token, channel.verificationToken) ||
      typeof challenge !== 'string' ||
      challenge.length > MAX_CHALLENGE_LENGTH
    ) {
      throw handshakeRefused();
    }
    response.status(200).type('text/plain').setHeader('X-Content-Type-Options', 'nosniff');
    response.send(challenge);
  }

  /**
   * A request without a well-formed signature is refused before anything is looked up. Then the
   * channel, whose own app secret (if any) is the only one that verifies it; an unknown channel
   * is checked against META_APP_SECRET, so that the 401 says nothing about which ids exist. Only
   * a verified notification learns that the channel is unknown (403).
   */
  private async receive(
    kind: ChannelKind,
    channelId: string,
    signature: string | undefined,
    request: Request,
  ): Promise<void> {
    const body: unknown = request.body;
    const raw = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
    const channel: WebhookChannel | undefined = isWellFormedSignature(signature)
      ? await this.channels.find(kind, channelId)
      : undefined;
    if (!isSignedByMeta(raw, signature, this.channels.signingSecrets(channel))) {
      this.metrics.webhookNotifications.inc({ channel_kind: kind, result: 'bad_signature' });
      // Worded by the configuration alone, never by the channel: the same for every id.
      throw new ProblemException(
        'invalid_signature',
        this.config.metaAppSecrets.length === 0 ? NO_GLOBAL_SECRET : BAD_SIGNATURE,
      );
    }
    if (!channel) {
      this.metrics.webhookNotifications.inc({ channel_kind: kind, result: 'unknown_channel' });
      throw noSuchChannel();
    }
    await this.inbox.store(channel, raw);
    this.metrics.webhookNotifications.inc({ channel_kind: kind, result: 'accepted' });
  }
}

function VerificationDocs() {
  return applyDecorators(
    ApiParam({ name: 'channel_id', description: 'The channel id (its webhook_url ends with it).' }),
    ApiQuery({ name: 'hub.mode', required: true, example: 'subscribe' }),
    ApiQuery({
      name: 'hub.verify_token',
      required: true,
      description: "The channel's `verification_token`, from the answer that created it.",
    }),
    ApiQuery({
      name: 'hub.challenge',
      required: true,
      description: 'Echoed back as the body.',
      example: '1158201444',
    }),
    ApiProduces('text/plain'),
    ApiOkResponse({ description: 'hub.challenge, as text/plain.' }),
    ApiProblemResponses(HANDSHAKE_REFUSED),
  );
}

function NotificationDocs(example: NotificationExample) {
  return applyDecorators(
    ApiParam({ name: 'channel_id', description: 'The channel id (its webhook_url ends with it).' }),
    ApiHeader({
      name: 'X-Hub-Signature-256',
      required: true,
      description:
        '`sha256=` followed by the hex HMAC-SHA256 of the exact body bytes with the channel\'s own `app_secret` when it has one, else with a META_APP_SECRET. To try it by hand: `printf %s "$BODY" | openssl dgst -sha256 -hmac "$META_APP_SECRET"`.',
    }),
    ApiBody({
      description:
        "Meta's notification, exactly as Meta sends it (docs/webhooks.md has samples). The signature covers these bytes: sign what you send. Its timestamps are Meta's: a message older than 24 hours opens no messaging window.",
      schema: { type: 'object', additionalProperties: true },
      examples: { [example.kind]: { summary: example.summary, value: example.value } },
    }),
    ApiOkResponse({ description: 'Stored; processed asynchronously. Empty body.' }),
    ApiProblemResponses(
      413,
      {
        code: 'invalid_signature',
        detail: BAD_SIGNATURE,
      },
      NO_SUCH_CHANNEL,
    ),
  );
}
