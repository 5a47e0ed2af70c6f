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
      const form = new FormUpload({
        client: this.client,
        maxBytes: this.maxBytes,
        logger: this.logger,
        credentials,
        source,
        log: { organization_id: principal.organizationId, channel_id: channelId },
      });
      return await form.start();
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
      throw tooLarge(this.maxBytes, 'MEDIA_MAX_BYTES');
    }
  }
}

/** What a form upload needs of the service. */
interface FormUploadContext {
  client: WhatsappMediaClient;
  maxBytes: number;
  logger: Logger;
  credentials: ChannelCredentials;
  source: UploadSource;
  log: Record<string, string>;
}

/**
 * One upload's form, read as it arrives: its one file streamed to Meta as it comes. The first
 * problem settles it (and stops the upload to Meta, and drops the rest of the body); success
 * needs both the whole form read and Meta's media id.
 */
class FormUpload {
  private readonly uploadAbort = new AbortController();
  private readonly parser: busboy.Busboy;
  private readonly settle: {
    resolve: (media: UploadedMedia) => void;
    reject: (error: unknown) => void;
  };
  readonly done: Promise<UploadedMedia>;
  private settled = false;
  private parsed = false;
  private file?: { stream: Readable; uploaded?: UploadedMedia };
  /** The part being read, while its bytes come: a form that ends inside it is a cut file. */
  private openPart?: Readable;

  /** Throws a 400 when the form cannot be parsed at all (no boundary). */
  constructor(private readonly context: FormUploadContext) {
    let settle!: FormUpload['settle'];
    this.done = new Promise((resolve, reject) => (settle = { resolve, reject }));
    this.settle = settle;
    try {
      this.parser = busboy({
        headers: context.source.headers,
        // A file's name as browsers and curl write it: UTF-8 bytes, not latin1.
        defParamCharset: 'utf8',
        limits: { fieldSize: 1024, fields: 10, parts: 20, headerPairs: 20 },
      });
    } catch (error) {
      // No boundary, or another multipart subtype.
      throw badForm([{ field: 'Content-Type', message: (error as Error).message }]);
    }
  }

  start(): Promise<UploadedMedia> {
    const { parser, context } = this;
    context.source.signal.addEventListener('abort', this.gone, { once: true });
    parser.on('file', (name, stream, info) => this.onFile(name, stream, info));
    parser.on('field', (name) => this.fail(unknownField(name)));
    for (const limit of ['partsLimit', 'fieldsLimit'] as const) {
      parser.on(limit, () =>
        this.fail(badForm([{ field: 'body', message: 'the form has too many parts' }])),
      );
    }
    // The body ended inside a part, or is not a form: without a listener, a crash.
    parser.on('error', (error: Error) =>
      this.fail(
        this.openPart
          ? cutFile()
          : badForm([{ field: 'body', message: `the form cannot be read: ${error.message}` }]),
      ),
    );
    parser.on('close', () => {
      this.parsed = true;
      this.succeedWhenDone();
    });
    context.source.body.pipe(parser);
    return this.done;
  }

  private readonly gone = (): void => {
    this.context.logger.log(this.context.log, 'media upload stopped: the client went away');
    this.fail(new ProblemException('bad_request', 'The client went away before the upload ended.'));
  };

  private onFile(name: string, stream: Readable, info: busboy.FileInfo): void {
    // Busboy errors the part's stream when the body ends inside it: without a listener, a crash.
    this.openPart = stream;
    stream.on('error', () => this.fail(cutFile()));
    stream.on('end', () => (this.openPart = undefined));
    const refusal =
      name !== FILE_FIELD
        ? unknownField(name)
        : this.file
          ? badForm([{ field: FILE_FIELD, message: 'send exactly one file' }])
          : mediaKindOf(info.mimeType) === undefined
            ? unsupportedType(info.mimeType)
            : undefined;
    if (this.settled || refusal) {
      stream.resume();
      if (refusal) this.fail(refusal);
      return;
    }
    this.file = { stream };
    // A failure to tell Meta's refusal (a database error while deactivating the channel) is the
    // answer too: never an unhandled rejection.
    this.send(this.file, info).catch((error: unknown) => this.fail(error));
  }

  /** Streams the file to Meta through its byte limit; settles with Meta's answer. */
  private async send(file: NonNullable<FormUpload['file']>, info: busboy.FileInfo): Promise<void> {
    const { client, credentials, maxBytes, logger, log } = this.context;
    const mimeType = baseMimeType(info.mimeType);
    const kind = mediaKindOf(mimeType) as { kind: WhatsappMediaKind; maxBytes: number };
    const limit = new UploadLimit(Math.min(maxBytes, kind.maxBytes), kind.kind === 'sticker');
    limit.on('error', (error) => {
      if (error instanceof MediaSizeExceededError) {
        this.fail(sizeProblem(error.limit, maxBytes, kind.kind));
      }
    });
    file.stream.pipe(limit);
    const result = await client.upload(
      credentials.channel.senderId,
      credentials.accessToken,
      { mimeType, filename: info.filename || FILE_FIELD, body: limit },
      this.uploadAbort.signal,
    );
    if (this.settled) return;
    if ('mediaId' in result) {
      file.uploaded = { media_id: result.mediaId, mime_type: mimeType, size: limit.bytes };
      logger.log({ ...log, ...file.uploaded }, 'media uploaded to Meta');
      this.succeedWhenDone();
      return;
    }
    if (result.failure === 'aborted') return;
    this.fail(
      await graphCallProblem(result, {
        credentials,
        cannot: 'take the upload',
        logger,
        log: { message: 'media upload', fields: log },
      }),
    );
  }

  private succeedWhenDone(): void {
    if (this.settled || !this.parsed) return;
    if (!this.file) {
      this.fail(badForm([{ field: FILE_FIELD, message: `${FILE_FIELD} is required: one file` }]));
      return;
    }
    if (!this.file.uploaded) return;
    this.settled = true;
    this.context.source.signal.removeEventListener('abort', this.gone);
    this.settle.resolve(this.file.uploaded);
  }

  /** Answers at once: the upload to Meta stops, the rest of the body is read and dropped. */
  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    const { source } = this.context;
    this.uploadAbort.abort();
    source.signal.removeEventListener('abort', this.gone);
    source.body.unpipe(this.parser);
    source.body.resume();
    this.settle.reject(error);
  }
}

/** The 413 of a file past `limit`: MEDIA_MAX_BYTES, or Meta's for its kind. */
function sizeProblem(limit: number, maxBytes: number, kind: WhatsappMediaKind): ProblemException {
  if (limit === maxBytes) return tooLarge(limit, 'MEDIA_MAX_BYTES');
  const which =
    kind === 'sticker' && limit === STATIC_STICKER_MAX_BYTES
      ? "Meta's limit for a static sticker"
      : `Meta's limit for ${KIND_NAMES[kind]}`;
  return tooLarge(limit, which);
}

const tooLarge = (limit: number, which: string): ProblemException =>
  new ProblemException('media_too_large', `The file is larger than ${limit} bytes (${which}).`, {
    errors: [{ field: FILE_FIELD, message: `at most ${limit} bytes (${which})` }],
  });

const badForm = (errors: FieldError[]): ProblemException =>
  validationFailed(errors, `Send one file, in a multipart/form-data field named ${FILE_FIELD}.`);

const cutFile = (): ProblemException =>
  badForm([
    { field: FILE_FIELD, message: 'the body ends before the file does (no closing boundary)' },
  ]);

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
