/*
 * Makes a simulated client write to a sandbox channel, from a terminal (docs/sandbox.md):
 *   npm run simulate -- --channel <id> --from +34612345678 --text "hi"
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseArgs } from 'node:util';
import { loadDotEnv } from '../config/dot-env';
import { mintDevToken, runCli } from './dev-token';

const USAGE =
  'usage: npm run simulate -- --channel <id> --from <phone or PSID> (--text <text> | --image <file> | --document <file> | --location <lat,lng[,name]> | --button-reply <id:title> | --reaction <message_id:emoji> | --message <json>) [--kind whatsapp|messanger] [--org <org> --sub <user>]';
const HELP = `${USAGE}

Writes as a client of a sandbox channel: posts to POST /sandbox/{kind}/{channel}/inbound, which
signs the message as Meta does and delivers it to the channel's webhook (agentline started with
META_SANDBOX=true, e.g. npm run start:sandbox). Prints the answer; exits 1 on any failure.
  --channel       the channel's id (data.id of POST /v1/channels/whatsapp)
  --from          the client: an E.164 number (WhatsApp) or a PSID (Messenger)
  --kind          whatsapp (default) or messanger
  --text          a text message ("STOP" opts the client out)
  --image, --document
                  a file the client sends (WhatsApp): uploaded to the sandbox through the channel
                  (POST /v1/channels/whatsapp/{channel}/media), then sent by its media id;
                  --caption adds a caption
  --location      a location: latitude,longitude[,name]
  --button-reply  the reply to an interactive button: id:title (WhatsApp button_reply;
                  a quick reply on Messenger)
  --reaction      a reaction to a message: message_id:emoji (an empty emoji removes it)
  --message       any message object in Meta's shape, as JSON, or @file to read it from a file
  --reply-to      the id of the message this one answers (WhatsApp's context.id)
Authentication: AGENTLINE_TOKEN, or --org and --sub to mint a token as npm run token does
(--ttl, default 1h). The service: AGENTLINE_URL (default http://localhost:3000) or --url.
`;

const CONTENT_OPTIONS = [
  'text',
  'image',
  'document',
  'location',
  'button-reply',
  'reaction',
  'message',
] as const;
type Kind = 'whatsapp' | 'messanger';
type Values = Partial<Record<(typeof CONTENT_OPTIONS)[number] | 'reply-to' | 'caption', string>>;

/** A file uploaded to the sandbox: how the client's image or document message names it. */
export interface UploadedFile {
  id: string;
  mimeType: string;
  filename: string;
}

/** The types WhatsApp takes for an image or a document, by extension. */
const MIME_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  // WhatsApp takes no text/csv: a CSV goes as the plain text it is.
  '.csv': 'text/plain',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The MIME type the file is uploaded as, from its extension; undefined when not known. */
export const mimeTypeOf = (path: string): string | undefined =>
  MIME_TYPES[extname(path).toLowerCase()];

/** `a:b` split at the first colon; both parts required unless `emptyRight`. */
function pair(option: string, value: string, emptyRight = false): [string, string] {
  const at = value.indexOf(':');
  const left = at < 0 ? '' : value.slice(0, at);
  const right = at < 0 ? '' : value.slice(at + 1);
  if (!left || (!right && !emptyRight))
    throw new Error(`--${option} takes id:value, got "${value}"`);
  return [left, right];
}

function location(value: string): Record<string, unknown> {
  const [lat, lng, ...name] = value.split(',');
  const latitude = Number(lat);
  const longitude = Number(lng);
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || lng === undefined) {
    throw new Error(`--location takes latitude,longitude[,name], got "${value}"`);
  }
  return { latitude, longitude, ...(name.length > 0 && { name: name.join(',').trim() }) };
}

function parseMessage(value: string): Record<string, unknown> {
  const text = value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`--message is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error("--message must be a JSON object (a message in Meta's shape)");
  }
  return parsed as Record<string, unknown>;
}

/** The request body: `{ from, text }`, or `{ from, message }` with a message in Meta's shape. */
export function inboundBody(
  kind: Kind,
  from: string,
  values: Values,
  uploaded?: UploadedFile,
): Record<string, unknown> {
  const given = CONTENT_OPTIONS.filter((option) => values[option] !== undefined);
  if (given.length !== 1) {
    throw new Error(`Give exactly one of --${CONTENT_OPTIONS.join(', --')}.\n${USAGE}`);
  }
  // Meta's reply shape per kind: WhatsApp's `context.id`, Messenger's `reply_to.mid`.
  const replyTo = values['reply-to'];
  const context = !replyTo
    ? {}
    : kind === 'whatsapp'
      ? { context: { id: replyTo } }
      : { reply_to: { mid: replyTo } };
  const message = (content: Record<string, unknown>) => ({
    from,
    message: { ...content, ...context },
  });
  if (values.text !== undefined) {
    return replyTo ? message(textMessage(kind, values.text)) : { from, text: values.text };
  }
  if (values.message !== undefined) return message(parseMessage(values.message));
  const mediaType =
    values.image !== undefined ? 'image' : values.document !== undefined ? 'document' : undefined;
  if (mediaType) {
    if (kind === 'messanger' || !uploaded) throw new Error(`--${mediaType} is WhatsApp only`);
    return message({
      type: mediaType,
      [mediaType]: {
        id: uploaded.id,
        mime_type: uploaded.mimeType,
        ...(mediaType === 'document' && { filename: uploaded.filename }),
        ...(values.caption !== undefined && { caption: values.caption }),
      },
    });
  }
  if (values.location !== undefined) {
    if (kind === 'messanger') throw new Error('--location is WhatsApp only (Messenger retired it)');
    return message({ type: 'location', location: location(values.location) });
  }
  if (values['button-reply'] !== undefined) {
    const [id, title] = pair('button-reply', values['button-reply']);
    return message(
      kind === 'whatsapp'
        ? {
            type: 'interactive',
            interactive: { type: 'button_reply', button_reply: { id, title } },
          }
        : { text: title, quick_reply: { payload: id } },
    );
  }
  const [messageId, emoji] = pair('reaction', values.reaction ?? '', true);
  return message(
    kind === 'whatsapp'
      ? { type: 'reaction', reaction: { message_id: messageId, emoji } }
      : { reaction: { mid: messageId, action: emoji ? 'react' : 'unreact', emoji } },
  );
}

const textMessage = (kind: Kind, text: string) =>
  kind === 'whatsapp' ? { type: 'text', text: { body: text } } : { text };

/** A problem details answer, readably: status, title, detail, its field errors, its request id. */
export function describeFailure(status: number, body: string): string {
  let problem: Record<string, unknown> | undefined;
  try {
    problem = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return `HTTP ${status}: ${body.slice(0, 500)}`;
  }
  const lines = [
    `HTTP ${status} ${String(problem.title ?? '')}: ${String(problem.detail ?? body)}`,
  ];
  for (const error of Array.isArray(problem.errors) ? problem.errors : []) {
    const { field, message } = error as { field?: string; message?: string };
    lines.push(`  ${field ?? ''}: ${message ?? ''}`);
  }
  const extra = [
    problem.code && `code ${String(problem.code)}`,
    problem.request_id && `request_id ${String(problem.request_id)}`,
  ].filter(Boolean);
  if (extra.length > 0) lines.push(`  (${extra.join(', ')})`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      channel: { type: 'string' },
      from: { type: 'string' },
      kind: { type: 'string', default: 'whatsapp' },
      ...Object.fromEntries(
        [...CONTENT_OPTIONS, 'reply-to', 'caption'].map((name) => [
          name,
          { type: 'string' as const },
        ]),
      ),
      org: { type: 'string' },
      sub: { type: 'string' },
      ttl: { type: 'string', default: '1h' },
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (!values.channel || !values.from) throw new Error(USAGE);
  loadDotEnv();
  const kind = values.kind;
  if (kind !== 'whatsapp' && kind !== 'messanger') {
    throw new Error(`--kind is whatsapp or messanger, got "${kind}"`);
  }
  const token = bearerToken(values);
  // The CLI's own variables, not the service's: README ("Configuration") names them beside the
  // generated tables.
  // eslint-disable-next-line no-restricted-syntax
  const base = (values.url ?? process.env.AGENTLINE_URL ?? 'http://localhost:3000').replace(
    /\/+$/,
    '',
  );
  const call = async (path: string, init: RequestInit): Promise<string> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${token}`, ...init.headers },
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(
        `Cannot reach agentline at ${base}: ${cause?.code ?? cause?.message ?? String(error)}. Is it running (npm run start:sandbox), and is AGENTLINE_URL right?`,
      );
    }
    const text = await response.text();
    if (!response.ok) throw new Error(describeFailure(response.status, text));
    return text;
  };
  const channel = encodeURIComponent(values.channel);
  const content = values as Values;
  const file = content.image ?? content.document;
  let uploaded: UploadedFile | undefined;
  if (file !== undefined && kind === 'whatsapp') {
    uploaded = await upload(file, (form) =>
      call(`/v1/channels/whatsapp/${channel}/media`, { method: 'POST', body: form }),
    );
  }
  const body = inboundBody(kind, values.from, content, uploaded);
  const answer = await call(`/sandbox/${kind}/${channel}/inbound`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  process.stdout.write(`${answer}\n`);
}

/** Uploads the file as the channel's media; its id is what the client's message carries. */
async function upload(
  path: string,
  post: (form: FormData) => Promise<string>,
): Promise<UploadedFile> {
  const mimeType = mimeTypeOf(path);
  if (!mimeType) {
    throw new Error(
      `${path}: its type is not known from the extension; use one of ${Object.keys(MIME_TYPES).join(' ')}`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new Error(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const filename = basename(path);
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: mimeType }), filename);
  const answer = JSON.parse(await post(form)) as { data?: { media_id?: string } };
  const id = answer.data?.media_id;
  if (!id) throw new Error('The upload answered no media_id.');
  return { id, mimeType, filename };
}
function bearerToken(values: { org?: string; sub?: string; ttl?: string }): string {
  if (values.org || values.sub) {
    if (!values.org || !values.sub) throw new Error('--org and --sub go together');
    const { token, newDevSecret } = mintDevToken({
      org: values.org,
      sub: values.sub,
      ttl: values.ttl ?? '1h',
    });
    if (newDevSecret) {
      process.stderr.write(
        `No JWT_SECRET is set and ${newDevSecret} did not exist: the token is signed with a secret made now, which the server will refuse unless it runs on this DATA_DIR.\n`,
      );
    }
    return token;
  }
  // eslint-disable-next-line no-restricted-syntax -- the CLI's own variable (see AGENTLINE_URL)
  const token = process.env.AGENTLINE_TOKEN;
  if (!token) {
    throw new Error(
      'No token: set AGENTLINE_TOKEN (npm run token -- --org <org> --sub <user>), or pass --org and --sub.',
    );
  }
  return token;
}

if (require.main === module) runCli(main);
