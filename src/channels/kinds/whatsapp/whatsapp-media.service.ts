import { ConversationsService } from '../../conversations/conversations.service';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Principal } from '../../../common/auth/principal';
import { attachmentDisposition } from '../../../common/http/content-disposition';
import { ProblemException, validationFailed } from '../../../common/http/problem';
import { describeOutboundError } from '../../../common/outbound-http';
import { ChannelCredentials, ChannelMessageSender } from '../../channel-message-sender';
import { CHANNELS_CONFIG, ChannelsConfig } from '../../channels.config';
import {
  ByteLimit,
  isMediaFailure,
  MediaFailure,
  MediaSizeExceededError,
  WhatsappMediaClient,
} from './whatsapp-media.client';
import { graphCallProblem, openForGraphCall } from '../meta/graph-call';
import { WHATSAPP_KIND } from './whatsapp.kind';

/**
 * A media id as Meta writes them (digits), with room for letters, `_` and `-`; nothing that could
 * move in a URL path (`/`, `.`, `%`), so `..%2F` never reaches Graph.
 */
export const MEDIA_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** An inbound media file, its headers read from Meta, its bytes not yet. */
export interface MediaDownload {
  /** The answer's headers: Content-Type, Content-Length when known, Content-Disposition, ... */
  headers: Record<string, string>;
  body: Readable;
  /** Bytes allowed through: MEDIA_MAX_BYTES, or the Content-Length announced if smaller. */
  limit: number;
  /** For the log lines of `stream`. */
  log: { organization_id: string; channel_id: string; media_id: string };
}

export interface OpenMediaOptions {
  /** Aborted when the client goes away: the calls to Meta stop with it. */
  signal: AbortSignal;
}

/**
 * Downloads a WhatsApp channel's inbound media for the organization that owns the channel:
 * `open` checks the channel and asks Meta (answering a problem when it cannot), `stream` pipes
 * the bytes to the client with backpressure, never holding the file.
 */
@Injectable()
export class WhatsappMediaService {
  private readonly logger = new Logger(WhatsappMediaService.name);
  private readonly maxBytes: number;

  constructor(
    private readonly channels: ChannelMessageSender,
    private readonly client: WhatsappMediaClient,
    private readonly conversations: ConversationsService,
    @Inject(CHANNELS_CONFIG) config: ChannelsConfig,
  ) {
    this.maxBytes = config.mediaMaxBytes;
  }

  /** Undefined when the client went away before there was anything to answer. */
  async open(
    principal: Principal,
    channelId: string,
    mediaId: string,
    { signal }: OpenMediaOptions,
  ): Promise<MediaDownload | undefined> {
    if (!MEDIA_ID_PATTERN.test(mediaId)) {
      throw validationFailed(
        [{ field: 'media_id', message: 'media_id must be 1 to 128 letters, digits, _ or -' }],
        'The media id is not valid.',
      );
    }
    const log = {
      organization_id: principal.organizationId,
      channel_id: channelId,
      media_id: mediaId,
    };
    const opened = await openForGraphCall(this.channels, principal, channelId, WHATSAPP_KIND);
    // The name to offer: a document's `filename`, from the message that carried the media id.
    const filename = await this.conversations.mediaFilename(
      principal.organizationId,
      channelId,
      mediaId,
    );
    const info = await this.client.lookup(mediaId, opened.accessToken, signal);
    if (isMediaFailure(info)) {
      return this.fail(info, opened, log);
    }
    if (info.fileSize !== undefined && info.fileSize > this.maxBytes) {
      throw this.tooLarge(info.fileSize, log);
    }

    const media = await this.client.download(info.url, opened.accessToken, {
      maxBytes: this.maxBytes,
      signal,
    });
    if (isMediaFailure(media)) return this.fail(media, opened, log);
    const headers: Record<string, string> = {
      'Content-Type': info.mimeType,
      'Content-Disposition': attachmentDisposition(filename),
      // The type is Meta's, the bytes the sender's: a browser must not guess another type.
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-store',
    };
    if (media.contentLength !== undefined) {
      headers['Content-Length'] = String(media.contentLength);
    }
    return {
      headers,
      body: media.body,
      limit: Math.min(this.maxBytes, media.contentLength ?? Infinity),
      log,
    };
  }

  /**
   * Pipes the media to the client with backpressure. A failure once bytes are out (the media host
   * sends more than allowed, stops sending for GRAPH_API_TIMEOUT_MS, or the client goes away)
   * destroys both sides: the client sees a cut transfer, Meta's connection is closed, and the
   * log says why. Never throws.
   */
  async stream(media: MediaDownload, destination: Writable): Promise<void> {
    const limit = new ByteLimit(media.limit);
    try {
      await pipeline(media.body, limit, destination);
    } catch (error) {
      const fields = { ...media.log, bytes: limit.bytes };
      if (error instanceof MediaSizeExceededError) {
        this.logger.warn(
          { ...fields, limit: media.limit },
          `media download cut: ${error.message} (MEDIA_MAX_BYTES or the Content-Length it announced)`,
        );
        return;
      }
      const { code, message, timedOut } = describeOutboundError(error);
      if (code === 'ERR_STREAM_PREMATURE_CLOSE') {
        // The first error wins: this one is the client's response closing before the end.
        this.logger.log(fields, 'media download stopped: the client went away');
      } else {
        this.logger.warn(
          { ...fields, code },
          timedOut
            ? 'media download cut: the media host sent no byte within GRAPH_API_TIMEOUT_MS'
            : `media download cut: ${message}`,
        );
      }
    }
  }

  private tooLarge(size: number, log: MediaDownload['log']): ProblemException {
    this.logger.warn({ ...log, size, limit: this.maxBytes }, 'media larger than MEDIA_MAX_BYTES');
    return new ProblemException(
      'media_too_large',
      `The media is ${size} bytes; this service streams at most ${this.maxBytes} (MEDIA_MAX_BYTES).`,
    );
  }

  /** The problem of a failure before any byte was sent; undefined when the client went away. */
  private async fail(
    failure: MediaFailure,
    credentials: ChannelCredentials,
    log: MediaDownload['log'],
  ): Promise<undefined> {
    switch (failure.failure) {
      case 'aborted':
        this.logger.log(log, 'media download stopped: the client went away');
        return undefined;
      case 'too_large':
        throw this.tooLarge(failure.size, log);
      case 'not_found':
        throw new ProblemException(
          'media_not_found',
          `Media ${log.media_id} was not found: Meta does not know it, or no longer keeps it.`,
        );
      default:
        throw await graphCallProblem(failure, {
          credentials,
          cannot: 'serve the media',
          logger: this.logger,
          log: { message: 'media download', fields: log },
        });
    }
  }
}
