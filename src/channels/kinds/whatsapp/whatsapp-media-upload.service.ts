import { Inject, Injectable, Logger } from '@nestjs/common';
import busboy from 'busboy';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { Principal } from '../../../common/auth/principal';
import { FieldError, ProblemException, validationFailed } from '../../../common/http/problem';
import type { ChannelCredentials } from '../../channel-message-sender';
import { ChannelMessageSender } from '../../channel-message-sender';
import { CHANNELS_CONFIG, ChannelsConfig } from '../../channels.config';
import { graphCallProblem, openForGraphCall } from '../meta/graph-call';
import { ByteLimit, MediaSizeExceededError, WhatsappMediaClient } from './whatsapp-media.client';
import {
  baseMimeType,
  isAnimatedWebp,
  mediaKindOf,
  STATIC_STICKER_MAX_BYTES,
  WEBP_HEADER_BYTES,
  WHATSAPP_MEDIA_TYPES,
  WhatsappMediaKind,
} from './whatsapp-media-types';
import { WHATSAPP_KIND } from './whatsapp.kind';

/** What an upload answers: Meta's media id, the type it was uploaded as, its size in bytes. */
export interface UploadedMedia {
  media_id: string;
  mime_type: string;
  size: number;
}

/** The request as the controller hands it over: its headers and its body, not yet read. */
export interface UploadSource {
  headers: IncomingHttpHeaders;
  body: Readable;
  /** Aborted when the client goes away: the upload to Meta stops with it. */
  signal: AbortSignal;
}

/** A multipart form's own bytes beside the file: boundaries and part headers. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
const FILE_FIELD = 'file';

const KIND_NAMES: Record<WhatsappMediaKind, string> = {
  audio: 'an audio',
  document: 'a document',
  image: 'an image',
  sticker: 'an animated sticker',
  video: 'a video',
};

/**
 * The bytes of an upload, up to its limit: MEDIA_MAX_BYTES or Meta's for its kind; a WebP sticker
 * that its header says is static gets Meta's static limit instead of the animated one.
 */
class UploadLimit extends ByteLimit {
  private head = Buffer.alloc(0);

  constructor(
    limit: number,
    private readonly sticker: boolean,
  ) {
    super(limit);
  }

  override _transform(chunk: Buffer, encoding: BufferEncoding, done: TransformCallback): void {
    if (this.sticker && this.head.length < WEBP_HEADER_BYTES) {
      this.head = Buffer.concat([
        this.head,
        chunk.subarray(0, WEBP_HEADER_BYTES - this.head.length),
      ]);
      if (this.head.length === WEBP_HEADER_BYTES && !isAnimatedWebp(this.head)) {
        this.limit = Math.min(this.limit, STATIC_STICKER_MAX_BYTES);
      }
    }
    super._transform(chunk, encoding, done);
  }
}

/**
 * Uploads a file to a WhatsApp channel's number (Meta's "Upload media"), for the organization that
 * owns the channel: the multipart body is parsed as it arrives and its file streamed to Graph
 * with backpressure, never held whole. The first problem answers at once, the upload to Meta is
 * stopped, and the rest of the body is read and dropped so that the client reads the answer.
 */
@Injectable()
export class WhatsappMediaUploadService {
  private readonly logger = new Logger(WhatsappMediaUploadService.name);
  private readonly maxBytes: number;

  constructor(
    private readonly channels: ChannelMessageSender,
    private readonly client: WhatsappMediaClient,
    @Inject(CHANNELS_CONFIG) config: ChannelsConfig,
  ) {
    this.maxBytes = config.mediaMaxBytes;
  }

  async upload(
    principal: Principal,
    channelId: string,
    source: UploadSource,
  ): Promise<UploadedMedia> {
    try {
      this.assertForm(source.headers);
      const credentials = await openForGraphCall(
        this.channels,
        principal,
        channelId,
        WHATSAPP_KIND,
      );
      return await this.receive(credentials, source, {
        organization_id: principal.organizationId,
        channel_id: channelId,
      });
    } catch (error) {
      // What is left of the body is read and dropped: the client is still sending it.
      source.body.resume();
      throw error;
    }
  }

  /** A multipart/form-data body, not announced larger than any file this service takes. */
  private assertForm(headers: IncomingHttpHeaders): void {
    if (!/^multipart\/form-data\s*(;|$)/i.test(headers['content-type'] ?? '')) {
      throw new ProblemException(
        'unsupported_media_type',
        `Send the file as multipart/form-data, in a field named ${FILE_FIELD}.`,
      );
    }
    const declared = Number(headers['content-length']);
    if (Number.isSafeInteger(declared) && declared > this.maxBytes + FORM_OVERHEAD_BYTES) {
      throw this.tooLarge(this.maxBytes, 'MEDIA_MAX_BYTES');
    }
  }

  /** Parses the form as it arrives and streams its one file to Meta; settles on the first problem. */
  private receive(
    credentials: ChannelCredentials,
    source: UploadSource,
    log: Record<string, string>,
  ): Promise<UploadedMedia> {
    return new Promise<UploadedMedia>((resolve, reject) => {
      const uploadAbort = new AbortController();
      const onGone = () => {
        this.logger.log(log, 'media upload stopped: the client went away');
        fail(new ProblemException('bad_request', 'The client went away before the upload ended.'));
      };
      source.signal.addEventListener('abort', onGone, { once: true });
      let settled = false;
      let parsed = false;
      let uploaded: UploadedMedia | undefined;
      let file: { limit: UploadLimit; stream: Readable } | undefined;
      let parser: busboy.Busboy;

      const fail = (problem: ProblemException): void => {
        if (settled) return;
        settled = true;
        uploadAbort.abort();
        source.signal.removeEventListener('abort', onGone);
        source.body.unpipe(parser);
        source.body.resume();
        file?.stream.resume();
        reject(problem);
      };
      const succeedWhenDone = (): void => {
        if (settled || !parsed) return;
        if (!file) {
          fail(badForm([{ field: FILE_FIELD, message: `${FILE_FIELD} is required: one file` }]));
          return;
        }
        if (!uploaded) return;
        settled = true;
        source.signal.removeEventListener('abort', onGone);
        resolve(uploaded);
      };

      try {
        parser = busboy({
          headers: source.headers,
          // A file's name as browsers and curl write it: UTF-8 bytes, not latin1.
          defParamCharset: 'utf8',
          limits: { fieldSize: 1024, fields: 10, parts: 20, headerPairs: 20 },
        });
      } catch (error) {
        // No boundary, or another multipart subtype.
        reject(badForm([{ field: 'Content-Type', message: (error as Error).message }]));
        return;
      }

      parser.on('file', (name, stream, info) => {
        if (settled) return void stream.resume();
        if (name !== FILE_FIELD) {
          stream.resume();
          return fail(unknownField(name));
        }
        if (file) {
          stream.resume();
          return fail(badForm([{ field: FILE_FIELD, message: 'send exactly one file' }]));
        }
        const mimeType = baseMimeType(info.mimeType);
        const kind = mediaKindOf(mimeType);
        if (!kind) {
          stream.resume();
          return fail(unsupportedType(info.mimeType));
        }
        const limitBytes = Math.min(this.maxBytes, kind.maxBytes);
        const limit = new UploadLimit(limitBytes, kind.kind === 'sticker');
        file = { limit, stream };
        stream.pipe(limit);
        limit.on('error', (error) => {
          if (!(error instanceof MediaSizeExceededError)) return;
          fail(
            error.limit === this.maxBytes
              ? this.tooLarge(error.limit, 'MEDIA_MAX_BYTES')
              : this.tooLarge(
                  error.limit,
                  error.limit === STATIC_STICKER_MAX_BYTES && kind.kind === 'sticker'
                    ? "Meta's limit for a static sticker"
                    : `Meta's limit for ${KIND_NAMES[kind.kind]}`,
                ),
          );
        });
        void this.client
          .upload(
            credentials.channel.senderId,
            credentials.accessToken,
            { mimeType, filename: info.filename || FILE_FIELD, body: limit },
            uploadAbort.signal,
          )
          .then(async (result) => {
            if (settled) return;
            if ('mediaId' in result) {
              uploaded = { media_id: result.mediaId, mime_type: mimeType, size: limit.bytes };
              this.logger.log({ ...log, ...uploaded }, 'media uploaded to Meta');
              return succeedWhenDone();
            }
            if (result.failure === 'aborted') return;
            fail(
              await graphCallProblem(result, {
                credentials,
                cannot: 'take the upload',
                logger: this.logger,
                log: { message: 'media upload', fields: log },
              }),
            );
          });
      });
      parser.on('field', (name) => fail(unknownField(name)));
      for (const limit of ['partsLimit', 'fieldsLimit'] as const) {
        parser.on(limit, () =>
          fail(badForm([{ field: 'body', message: 'the form has too many parts' }])),
        );
      }
      parser.on('error', (error: Error) =>
        fail(badForm([{ field: 'body', message: `the form cannot be read: ${error.message}` }])),
      );
      parser.on('close', () => {
        parsed = true;
        succeedWhenDone();
      });
      source.body.pipe(parser);
    });
  }

  private tooLarge(limit: number, which: string): ProblemException {
    return new ProblemException(
      'media_too_large',
      `The file is larger than ${limit} bytes (${which}).`,
      { errors: [{ field: FILE_FIELD, message: `at most ${limit} bytes (${which})` }] },
    );
  }
}

const badForm = (errors: FieldError[]): ProblemException =>
  validationFailed(errors, `Send one file, in a multipart/form-data field named ${FILE_FIELD}.`);

const unknownField = (name: string): ProblemException =>
  badForm([
    {
      field: name.slice(0, 100),
      message: `unknown field: the form takes one file, in a field named ${FILE_FIELD}`,
    },
  ]);

function unsupportedType(given: string): ProblemException {
  return new ProblemException(
    'unsupported_media_type',
    `WhatsApp does not take ${given.slice(0, 100)} files.`,
    {
      errors: [
        {
          field: FILE_FIELD,
          message: `the file's Content-Type must be one Meta supports: ${WHATSAPP_MEDIA_TYPES.join(', ')}`,
        },
      ],
    },
  );
}
