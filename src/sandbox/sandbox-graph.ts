import { Clock } from '../common/clock';
import { Injectable, Logger } from '@nestjs/common';
import busboy from 'busboy';
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProviderAccount, ProviderAccounts } from '../channels';
import {
  bearerToken,
  graphError,
  GraphAnswer,
  graphRefusal,
  INVALID_TOKEN,
  MISSING_TOKEN,
  unknownObject,
} from './graph/graph-errors';
import { newMid, newWamid } from './graph/graph-ids';
import { checkUpload, mediaTooBig } from './graph/graph-media';
import { CheckedSend, checkMessagesBody } from './graph/graph-send-body';
import { readTemplateListingQuery, templateListingPage } from './graph/graph-template-listing';
import { PricingCategory } from './meta-notifications';
import { SandboxConversations, SandboxChannelKind } from './sandbox-conversations';
import { SANDBOX_GRAPH_PATH, SandboxLoopback } from './sandbox-loopback';
import { SANDBOX_MEDIA_BYTES, SandboxMedia, SandboxMediaFile } from './sandbox-media';
import { isFailingClient, SandboxStatuses } from './sandbox-statuses';
import { checkTemplateSend, SANDBOX_TEMPLATES } from './sandbox-templates';

/** Graph's own limit on a JSON body is far above what a send needs; this is the API's. */
const MAX_JSON_BYTES = 1024 * 1024;
/** Meta's customer service window. */
export const WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long a media download URL is good for (Meta's: 5 minutes). */
const DOWNLOAD_URL_MS = 5 * 60 * 1000;

const VERSIONED = /^\/(v\d+\.\d+)\/([^/?]+)(?:\/([a-z_]+))?\/?(?:\?(.*))?$/;
const DOWNLOAD = /^\/media\/([^/?]+)\?(.*)$/;

/** The two kinds whose channels the stand-in serves: WhatsApp numbers and Messenger pages. */
const KINDS: readonly SandboxChannelKind[] = ['whatsapp', 'messanger'];

const OUTSIDE_WINDOW = (): GraphAnswer =>
  graphRefusal(400, 131047, '(#131047) Re-engagement message', {
    error_data: {
      messaging_product: 'whatsapp',
      details:
        'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
    },
  });

/** WhatsApp's media message types, sent by an uploaded media's `id` or a `link`. */
const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'];

/** Graph's answer to a media id this number never uploaded (or one it has forgotten). */
const NOT_A_MEDIA_ID = (type: string): GraphAnswer =>
  graphRefusal(400, 100, '(#100) Invalid parameter', {
    error_data: {
      messaging_product: 'whatsapp',
      details: `Param ${type}['id'] is not a valid whatsapp business account media attachment ID`,
    },
  });

/** Messenger's answer to a RESPONSE or UPDATE more than 24 hours after the client's last message. */
const OUTSIDE_MESSANGER_WINDOW = (): GraphAnswer =>
  graphRefusal(
    400,
    10,
    '(#10) This message is sent outside of allowed window. Learn more about the new policy here: https://developers.facebook.com/docs/messenger-platform/policy-overview',
    { error_subcode: 2018278 },
  );

/** What Messenger's Send API answers for a PSID it cannot reach (the sandbox's failing PSIDs). */
const NO_MATCHING_USER = (): GraphAnswer =>
  graphRefusal(400, 100, '(#100) No matching user found', { error_subcode: 2018001 });

/**
 * The stand-in for Meta's Graph API (docs/sandbox.md): every call agentline's channels make,
 * answered as Meta answers it, in Graph's own shapes (no problem details, no data wrapper). Sends
 * are checked as Meta checks them (src/sandbox/graph/), recorded in the sandbox's conversations,
 * then followed by Meta's status notifications (SandboxStatuses); uploads are kept in memory
 * (SandboxMedia); a business account of a channel lists the sandbox's templates to its token.
 */
@Injectable()
export class SandboxGraph {
  private readonly logger = new Logger('Sandbox');
  /** Signs download URLs, as Meta's carry a hash: a URL cannot be made up for another id. */
  private readonly urlKey = createSecretKey(randomBytes(32));

  constructor(
    private readonly accounts: ProviderAccounts,
    private readonly conversations: SandboxConversations,
    private readonly media: SandboxMedia,
    private readonly statuses: SandboxStatuses,
    private readonly loopback: SandboxLoopback,
    private readonly clock: Clock,
  ) {}

  /** The express handler, mounted at SANDBOX_GRAPH_PATH (req.url is below it). */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.route(req, res).catch((error: unknown) => {
      this.logger.error({ err: error }, 'the sandbox’s Graph stand-in failed');
      reply(res, {
        status: 500,
        body: graphError(1, 'An unknown error has occurred.', { is_transient: true }),
      });
    });
  };

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const token = bearerToken(req.headers.authorization);
    const download = req.method === 'GET' ? DOWNLOAD.exec(url) : null;
    if (download) return this.download(decode(download[1]), download[2], token, res);
    const match = VERSIONED.exec(url);
    const [node, edge, query] = match ? [decode(match[2]), match[3], match[4] ?? ''] : [];
    if (node === undefined) return reply(res, unsupported(req.method));
    if (!token) {
      req.resume();
      return reply(res, MISSING_TOKEN());
    }
    if (req.method === 'POST' && edge === 'messages') {
      const raw = await readBody(req, MAX_JSON_BYTES);
      if (raw === undefined) {
        return reply(res, graphRefusal(400, 100, '(#100) The request body is too large'));
      }
      return reply(res, await this.messages(node, token, req.headers['content-type'], raw));
    }
    if (req.method === 'POST' && edge === 'media') return this.upload(node, token, req, res);
    req.resume();
    if (req.method === 'GET' && edge === 'message_templates') {
      // Listed to a token of a channel on that business account only, as Graph's permissions do.
      const owners = await this.accounts.onBusinessAccount(node);
      if (!owners.some((owner) => owner.acceptsToken(token))) {
        return reply(res, owners.length > 0 ? INVALID_TOKEN() : unknownObject('get', node));
      }
      return reply(
        res,
        templateListingPage(
          SANDBOX_TEMPLATES,
          readTemplateListingQuery(new URLSearchParams(query)),
          {
            maxPageSize: 100,
            nextUrl: (next) =>
              `${this.loopback.graphApiUrl()}/${encodeURIComponent(node)}/message_templates?${next.toString()}`,
          },
        ),
      );
    }
    if (req.method === 'GET' && edge === undefined)
      return reply(res, await this.mediaInfo(node, token));
    reply(res, unsupported(req.method));
  }

  /** `POST /{sender}/messages`: a send, a read receipt or a sender action. */
  private async messages(
    senderId: string,
    token: string,
    contentType: string | undefined,
    raw: string,
  ): Promise<GraphAnswer> {
    const account = await this.account(senderId, token);
    if (isAnswer(account)) return account;
    const checked = checkMessagesBody(contentType, raw);
    if (typeof checked === 'string') return graphRefusal(400, 100, checked);
    if (checked.call !== 'send') {
      const recipient = checked.payload.recipient as { id: string } | undefined;
      return {
        status: 200,
        body: checked.call === 'read_receipt' ? { success: true } : { recipient_id: recipient?.id },
      };
    }
    return account.kind === 'whatsapp'
      ? this.sendWhatsapp(account, checked.send)
      : this.sendMessanger(account, checked.send);
  }

  private sendWhatsapp(account: ProviderAccount, send: CheckedSend): GraphAnswer {
    if (send.messagingType !== undefined)
      return graphRefusal(400, 100, '(#100) The parameter messaging_product is required.');
    const waId = send.to.replace(/\D/g, '');
    const type = String(send.payload.type);
    let category: PricingCategory = 'service';
    const record = (
      state: 'accepted' | 'failed',
      error?: { code: number; title: string; message: string },
    ) =>
      this.conversations.add({
        id: newWamid(waId),
        kind: 'whatsapp',
        ...owner(account),
        client: waId,
        direction: 'to_client',
        type,
        body: send.payload,
        state,
        ...(error && { error }),
        at: this.clock.now(),
        stateAt: { [state]: this.clock.now() },
      });
    const mediaId = (send.payload[type] as { id?: unknown } | undefined)?.id;
    if (MEDIA_TYPES.includes(type) && mediaId !== undefined) {
      const file = typeof mediaId === 'string' ? this.media.find(mediaId) : undefined;
      if (file?.channelId !== account.channelId) return this.refused(NOT_A_MEDIA_ID(type), record);
    }
    if (send.template) {
      const checked = checkTemplateSend(send.template);
      if ('status' in checked) return this.refused(checked, record);
      category = checked.category;
    } else {
      const last = this.conversations.lastFromClient({ ...owner(account), client: waId });
      if (last === undefined || this.clock.now() - last > WINDOW_MS)
        return this.refused(OUTSIDE_WINDOW(), record);
    }
    const message = record('accepted');
    this.statuses.follow(account, message, category);
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: send.to, wa_id: waId }],
        messages: [{ id: message.id, ...(send.template && { message_status: 'accepted' }) }],
      },
    };
  }

  private sendMessanger(account: ProviderAccount, send: CheckedSend): GraphAnswer {
    if (send.messagingType === undefined)
      return graphRefusal(400, 100, '(#100) The parameter recipient is required');
    if (isFailingClient(send.to)) return NO_MATCHING_USER();
    const message = send.payload.message as Record<string, unknown> | undefined;
    const record = (
      state: 'accepted' | 'failed',
      error?: { code: number; title: string; message: string },
    ) =>
      this.conversations.add({
        id: newMid(),
        kind: 'messanger',
        ...owner(account),
        client: send.to,
        direction: 'to_client',
        type: messangerType(message),
        body: send.payload,
        state,
        ...(error && { error }),
        at: this.clock.now(),
        stateAt: { [state]: this.clock.now() },
      });
    // A message tag is how a page writes outside the window; anything else needs the client's 24 hours.
    if (send.messagingType !== 'MESSAGE_TAG') {
      const last = this.conversations.lastFromClient({ ...owner(account), client: send.to });
      if (last === undefined || this.clock.now() - last > WINDOW_MS) {
        return this.refused(OUTSIDE_MESSANGER_WINDOW(), record);
      }
    }
    const stored = record('accepted');
    this.statuses.follow(account, stored, 'service');
    return { status: 200, body: { recipient_id: send.to, message_id: stored.id } };
  }

  /** Meta refused the send: the phone shows nothing, the chat view shows why. */
  private refused(
    answer: GraphAnswer,
    record: (state: 'failed', error: { code: number; title: string; message: string }) => unknown,
  ): GraphAnswer {
    const { error } = answer.body as {
      error: { code: number; message: string; error_data?: { details?: string } };
    };
    record('failed', {
      code: error.code,
      title: error.message.replace(/^\(#\d+\)\s*/, ''),
      message: error.error_data?.details ?? error.message,
    });
    return answer;
  }

  /** `POST /{number_id}/media`: multipart, kept in memory. */
  private async upload(
    numberId: string,
    token: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const account = await this.account(numberId, token, ['whatsapp']);
    if (isAnswer(account)) {
      req.resume();
      return reply(res, account);
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 2, fields: 10, fileSize: SANDBOX_MEDIA_BYTES },
      });
    } catch {
      req.resume();
      return reply(res, graphRefusal(400, 100, '(#100) The request must be multipart/form-data'));
    }
    const fields: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let files = 0;
    let bytes = 0;
    let truncated = false;
    let filename: string | undefined;
    parser.on('field', (name, value) => (fields[name] = value));
    let cut = false;
    parser.on('file', (name, stream, info) => {
      files += 1;
      // A part cut short ("Unexpected end of form") errors on its stream, not only on the parser:
      // unheard, it would end the process.
      stream.on('error', () => (cut = true));
      if (name !== 'file' || files > 1) {
        stream.resume();
        return;
      }
      filename = info.filename;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        chunks.push(chunk);
      });
      stream.on('limit', () => (truncated = true));
    });
    const finished = await new Promise<boolean>((resolve) => {
      parser.once('close', () => resolve(true));
      parser.once('error', () => resolve(false));
      req.pipe(parser);
    });
    if (!finished || cut) {
      req.unpipe(parser);
      req.resume();
      return reply(res, graphRefusal(400, 100, '(#100) The multipart body cannot be read'));
    }
    const refusal = checkUpload(fields, files, bytes);
    if (refusal) return reply(res, refusal);
    if (truncated) return reply(res, mediaTooBig(fields.type, SANDBOX_MEDIA_BYTES));
    const stored = this.media.add(account, {
      mimeType: fields.type,
      ...(filename !== undefined && { filename }),
      bytes: Buffer.concat(chunks),
    });
    reply(res, { status: 200, body: { id: stored.id } });
  }

  /** `GET /{media_id}`: its short-lived download URL, type, hash and size. */
  private async mediaInfo(mediaId: string, token: string): Promise<GraphAnswer> {
    const file = this.media.find(mediaId);
    const holder = file && (await this.mediaHolder(file));
    if (!file || !holder?.acceptsToken(token)) return unknownObject('get', mediaId);
    const expires = Math.floor((this.clock.now() + DOWNLOAD_URL_MS) / 1000);
    const query = new URLSearchParams({
      mid: file.id,
      ext: String(expires),
      hash: this.urlHash(file.id, expires),
    });
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        url: `${this.loopback.origin()}${SANDBOX_GRAPH_PATH}/media/${file.id}?${query.toString()}`,
        mime_type: file.mimeType,
        sha256: file.sha256,
        file_size: file.bytes.length,
        id: file.id,
      },
    };
  }

  /** The download URL: the bytes, with the owning channel's token, before it expires. */
  private async download(
    mediaId: string,
    rawQuery: string,
    token: string | undefined,
    res: ServerResponse,
  ): Promise<void> {
    const query = new URLSearchParams(rawQuery);
    const expires = Number(query.get('ext'));
    const file = this.media.find(mediaId);
    const holder = file && token ? await this.mediaHolder(file) : undefined;
    if (!token || !holder?.acceptsToken(token)) {
      res.writeHead(401).end();
      return;
    }
    if (
      !file ||
      query.get('hash') !== this.urlHash(mediaId, expires) ||
      expires * 1000 < this.clock.now()
    ) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': file.mimeType,
      'content-length': String(file.bytes.length),
    });
    res.end(file.bytes);
  }

  /**
   * The channel bound to the sender id whose token this is, or Graph's refusal. A number id may
   * equal another organization's page id: the token, not the first kind found, says whose it is.
   */
  private async account(
    senderId: string,
    token: string,
    kinds: readonly SandboxChannelKind[] = KINDS,
  ): Promise<ProviderAccount | GraphAnswer> {
    let found = false;
    for (const kind of kinds) {
      const account = await this.accounts.bySenderId(kind, senderId);
      if (account?.acceptsToken(token)) return account;
      found ||= account !== undefined;
    }
    return found ? INVALID_TOKEN() : unknownObject('post', senderId);
  }

  /** The live channel a media file was uploaded to (or received on); none once it is deleted. */
  private mediaHolder(file: SandboxMediaFile): Promise<ProviderAccount | undefined> {
    return this.accounts.ofOrganization('whatsapp', file.organizationId, file.channelId);
  }

  private urlHash(mediaId: string, expires: number): string {
    return createHmac('sha256', this.urlKey)
      .update(`${mediaId}:${expires}`)
      .digest('hex')
      .slice(0, 32);
  }
}

/** What a message is kept under: its channel and organization, and the number or page. */
const owner = (account: ProviderAccount) => ({
  channelId: account.channelId,
  organizationId: account.organizationId,
  senderId: account.senderId,
});

const isAnswer = (value: ProviderAccount | GraphAnswer): value is GraphAnswer => 'body' in value;

/** Messenger's message type, as the chat view names it. */
function messangerType(message: Record<string, unknown> | undefined): string {
  const attachment = message?.attachment as { type?: unknown } | undefined;
  return typeof attachment?.type === 'string' ? attachment.type : 'text';
}

const unsupported = (method: string | undefined): GraphAnswer =>
  graphRefusal(400, 100, `Unsupported ${(method ?? '').toLowerCase()} request.`, {
    type: 'GraphMethodException',
  });

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The body as text, or undefined past `limit` bytes (the rest is drained). */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size <= limit ? Buffer.concat(chunks).toString('utf8') : undefined;
}

function reply(res: ServerResponse, { status, body }: GraphAnswer): void {
  if (res.headersSent || res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(Buffer.byteLength(payload)),
    // What Graph's answers carry, and what agentline logs beside a failure.
    'x-fb-trace-id': randomBytes(8).toString('base64url'),
  });
  res.end(payload);
}
