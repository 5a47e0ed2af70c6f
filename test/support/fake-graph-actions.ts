import busboy from 'busboy';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeReply, send } from './fake-graph-api';
import { graphRefusal } from '../../src/sandbox/graph/graph-errors';
import { newMediaId } from '../../src/sandbox/graph/graph-ids';
import { checkUpload as checkUploadForm } from '../../src/sandbox/graph/graph-media';
import { checkReadReceipt, checkSenderAction } from '../../src/sandbox/graph/graph-send-body';

/**
 * The fake Graph API's calls that are not messages: Meta's "Upload media" (WhatsApp Cloud API,
 * Media reference: `POST /{phone_number_id}/media`, multipart `messaging_product`, `type`, `file`,
 * answered `{ id }`), the read receipt with its typing indicator ("Mark messages as read",
 * "Typing indicators": `{ messaging_product, status: "read", message_id, typing_indicator? }`,
 * answered `{ success: true }`) and Messenger's sender actions (Send API, "Sender Actions":
 * `{ recipient: { id }, sender_action }` and nothing else, answered `{ recipient_id }`). Each body
 * is checked as Meta documents it; anything else is refused with a Graph error, as Meta would.
 */

const UPLOAD_PATH = /^\/v23\.0\/([^/?]+)\/media(?:\?.*)?$/;

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
    upload.mediaId = newMediaId();
    return { status: 200, body: { id: upload.mediaId } };
  }
}

/** Meta's checks of an upload (src/sandbox/graph/graph-media.ts). */
const checkUpload = (upload: FakeUpload, files: number): Answer | undefined =>
  checkUploadForm(upload.fields, files, upload.bytes);

function reply(res: ServerResponse, answer: Answer): void {
  if (answer.delayMs) setTimeout(() => send(res, answer), answer.delayMs).unref();
  else send(res, answer);
}
