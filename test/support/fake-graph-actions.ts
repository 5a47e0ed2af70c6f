import busboy from 'busboy';
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeReply, graphError, send } from './fake-graph-api';

/**
 * The fake Graph API's calls that are not messages: Meta's "Upload media" (WhatsApp Cloud API,
 * Media reference: `POST /{phone_number_id}/media`, multipart `messaging_product`, `type`, `file`,
 * answered `{ id }`), the read receipt with its typing indicator ("Mark messages as read",
 * "Typing indicators": `{ messaging_product, status: "read", message_id, typing_indicator? }`,
 * answered `{ success: true }`) and Messenger's sender actions (Send API, "Sender Actions":
 * `{ recipient: { id }, sender_action }` and nothing else, answered `{ recipient_id }`). Each body
 * is checked as Meta documents it; anything else is refused with a Graph error, as Meta would.
 */

/** Meta's supported media types and their largest files (Media reference). */
const MEDIA_TYPES: Record<string, number> = {
  'audio/aac': 16 * 1024 * 1024,
  'audio/amr': 16 * 1024 * 1024,
  'audio/mpeg': 16 * 1024 * 1024,
  'audio/mp4': 16 * 1024 * 1024,
  'audio/ogg': 16 * 1024 * 1024,
  'text/plain': 100 * 1024 * 1024,
  'application/vnd.ms-excel': 100 * 1024 * 1024,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 100 * 1024 * 1024,
  'application/msword': 100 * 1024 * 1024,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 100 * 1024 * 1024,
  'application/vnd.ms-powerpoint': 100 * 1024 * 1024,
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 100 * 1024 * 1024,
  'application/pdf': 100 * 1024 * 1024,
  'image/jpeg': 5 * 1024 * 1024,
  'image/png': 5 * 1024 * 1024,
  'image/webp': 500 * 1024,
  'video/3gpp': 16 * 1024 * 1024,
  'video/mp4': 16 * 1024 * 1024,
};

const UPLOAD_PATH = /^\/v23\.0\/([^/?]+)\/media(?:\?.*)?$/;
const SENDER_ACTIONS = ['typing_on', 'typing_off', 'mark_seen'];

/** An upload as the fake received it (updated while the file streams in). */
export interface FakeUpload {
  numberId: string;
  accessToken: string;
  /** The form's fields, as sent. */
  fields: Record<string, string>;
  /** The file part's name and Content-Type. */
  filename?: string;
  fileType?: string;
  /** Bytes of the file received so far. */
  bytes: number;
  sha256?: string;
  /** The id answered, once the upload was accepted. */
  mediaId?: string;
  /** The whole form was read. */
  complete: boolean;
  /** The connection closed before the form ended (agentline stopped the upload). */
  closedEarly: boolean;
}

/** A read receipt or a sender action Meta accepted, its body exactly as received. */
export interface FakeAction {
  senderId: string;
  accessToken: string;
  payload: Record<string, unknown>;
}

type Answer = Exclude<FakeReply, 'hang' | 'destroy'>;

export class FakeGraphActions {
  readonly uploads: FakeUpload[] = [];
  readonly readReceipts: FakeAction[] = [];
  readonly senderActions: FakeAction[] = [];
  /** Uploads' bytes are read up to this many, then the fake stops reading (backpressure). */
  private holdAfter = Infinity;
  private readonly held = new Set<() => void>();

  reset(): void {
    this.uploads.length = 0;
    this.readReceipts.length = 0;
    this.senderActions.length = 0;
    this.release();
  }

  /** Stop reading uploads after `bytes` of their file, until `release()`. */
  holdUploadsAfter(bytes: number): void {
    this.holdAfter = bytes;
  }

  release(): void {
    this.holdAfter = Infinity;
    for (const resume of this.held) resume();
    this.held.clear();
  }

  /** Meta's upload endpoint; false when the request is not an upload. */
  upload(req: IncomingMessage, res: ServerResponse, next: () => FakeReply | undefined): boolean {
    const match = req.method === 'POST' ? UPLOAD_PATH.exec(req.url ?? '') : null;
    if (!match) return false;
    const accessToken = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const scripted = next();
    if (scripted === 'destroy') {
      req.socket.destroy();
      return true;
    }
    const upload: FakeUpload = {
      numberId: decodeURIComponent(match[1]),
      accessToken: accessToken ?? '',
      fields: {},
      bytes: 0,
      complete: false,
      closedEarly: false,
    };
    this.uploads.push(upload);
    req.once('close', () => (upload.closedEarly = !req.complete));
    let refusal: Answer | undefined = accessToken
      ? undefined
      : graphRefusal(401, 190, 'Invalid OAuth access token - Cannot parse access token');
    const done = () => {
      if (scripted === 'hang') return;
      const answer = refusal ?? scripted ?? this.accept(upload);
      reply(res, answer);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8' });
    } catch {
      refusal ??= graphRefusal(400, 100, '(#100) The request must be multipart/form-data');
      req.resume();
      req.on('end', done);
      return true;
    }
    let files = 0;
    parser.on('field', (name, value) => (upload.fields[name] = value));
    parser.on('file', (name, stream, info) => {
      files += 1;
      if (name !== 'file' || files > 1) {
        refusal ??= graphRefusal(400, 100, '(#100) Only one file, in the parameter file');
        stream.resume();
        return;
      }
      upload.filename = info.filename;
      upload.fileType = info.mimeType;
      const hash = createHash('sha256');
      stream.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        upload.bytes += chunk.length;
        if (upload.bytes >= this.holdAfter) {
          stream.pause();
          this.held.add(() => stream.resume());
        }
      });
      stream.on('end', () => (upload.sha256 = hash.digest('hex')));
    });
    parser.on('error', () => {
      refusal ??= graphRefusal(400, 100, '(#100) The multipart body cannot be read');
      req.unpipe(parser);
      req.resume();
      if (req.readableEnded) done();
      else req.on('end', done);
    });
    parser.on('close', () => {
      upload.complete = true;
      refusal ??= checkUpload(upload, files);
      done();
    });
    req.pipe(parser);
    return true;
  }

  /**
   * A read receipt or a sender action (a body with `status` or `sender_action`); false for
   * anything else (a message, for the fake's own checks).
   */
  action(
    res: ServerResponse,
    input: { senderId: string; accessToken: string; raw: string; contentType?: string },
    next: () => FakeReply | undefined,
  ): boolean {
    if (!input.contentType?.toLowerCase().startsWith('application/json')) return false;
    let payload: unknown;
    try {
      payload = JSON.parse(input.raw);
    } catch {
      return false;
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
    const body = payload as Record<string, unknown>;
    const isRead = 'status' in body;
    if (!isRead && !('sender_action' in body)) return false;
    const invalid = isRead ? checkReadReceipt(body) : checkSenderAction(body);
    if (invalid) {
      reply(res, graphRefusal(400, 100, invalid));
      return true;
    }
    const scripted = next();
    if (scripted === 'hang') return true;
    if (scripted === 'destroy') {
      res.socket?.destroy();
      return true;
    }
    const answer: Answer = scripted ?? {
      status: 200,
      body: isRead
        ? { success: true }
        : { recipient_id: (body.recipient as Record<string, string>).id },
    };
    if (answer.status >= 200 && answer.status < 300) {
      const { senderId, accessToken } = input;
      (isRead ? this.readReceipts : this.senderActions).push({
        senderId,
        accessToken,
        payload: body,
      });
    }
    reply(res, answer);
    return true;
  }

  private accept(upload: FakeUpload): Answer {
    upload.mediaId = String(BigInt(`0x${randomBytes(7).toString('hex')}`));
    return { status: 200, body: { id: upload.mediaId } };
  }
}

/** Meta's checks of an upload: the three parameters, a supported type, its size. */
function checkUpload(upload: FakeUpload, files: number): Answer | undefined {
  if (upload.fields.messaging_product !== 'whatsapp') {
    return graphRefusal(400, 100, '(#100) The parameter messaging_product is required.');
  }
  const type = upload.fields.type;
  if (type === undefined) return graphRefusal(400, 100, '(#100) The parameter type is required.');
  if (files !== 1) return graphRefusal(400, 100, '(#100) The parameter file is required.');
  const maxBytes = MEDIA_TYPES[type];
  if (maxBytes === undefined) {
    return graphRefusal(
      400,
      100,
      `(#100) Param file must be a file with one of the following types: ${Object.keys(MEDIA_TYPES).join(', ')}. Received file of type '${type}'.`,
    );
  }
  if (upload.bytes > maxBytes) {
    return graphRefusal(400, 131053, 'Media upload error', {
      error_data: { details: `File too big: ${type} files must be at most ${maxBytes} bytes` },
    });
  }
  return undefined;
}

/** `{ messaging_product: "whatsapp", status: "read", message_id, typing_indicator?: { type: "text" } }` */
function checkReadReceipt(body: Record<string, unknown>): string | undefined {
  const allowed = ['messaging_product', 'status', 'message_id', 'typing_indicator'];
  const unknown = Object.keys(body).find((key) => !allowed.includes(key));
  if (unknown) return `(#100) Param ${unknown} is not allowed with status`;
  if (body.messaging_product !== 'whatsapp') {
    return '(#100) The parameter messaging_product is required.';
  }
  if (body.status !== 'read') return '(#100) Param status must be one of {READ}';
  if (typeof body.message_id !== 'string' || body.message_id === '') {
    return '(#100) The parameter message_id is required.';
  }
  if (body.typing_indicator !== undefined) {
    const typing = body.typing_indicator as Record<string, unknown> | null;
    if (
      typeof typing !== 'object' ||
      typing === null ||
      Object.keys(typing).length !== 1 ||
      typing.type !== 'text'
    ) {
      return "(#100) Param typing_indicator['type'] must be one of {TEXT}";
    }
  }
  return undefined;
}

/** `{ recipient: { id }, sender_action }`, nothing else (Meta: other properties go separately). */
function checkSenderAction(body: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(body).find((key) => key !== 'recipient' && key !== 'sender_action');
  if (unknown) {
    return `(#100) Param ${unknown} cannot be sent with sender_action: send it in a separate request`;
  }
  const recipient = body.recipient as Record<string, unknown> | null;
  if (
    typeof recipient !== 'object' ||
    recipient === null ||
    Object.keys(recipient).length !== 1 ||
    typeof recipient.id !== 'string' ||
    !/^\d+$/.test(recipient.id)
  ) {
    return '(#100) The parameter recipient is required';
  }
  if (typeof body.sender_action !== 'string' || !SENDER_ACTIONS.includes(body.sender_action)) {
    return `(#100) Param sender_action must be one of {${SENDER_ACTIONS.map((a) => a.toUpperCase()).join(', ')}}`;
  }
  return undefined;
}

const graphRefusal = (
  status: number,
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
): Answer => ({ status, body: graphError(code, message, extra) });

function reply(res: ServerResponse, answer: Answer): void {
  if (answer.delayMs) setTimeout(() => send(res, answer), answer.delayMs).unref();
  else send(res, answer);
}
