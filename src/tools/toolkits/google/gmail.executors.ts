import { ToolExecutionError, ToolExecutor } from '../../execution/tool-executor';
import { field, isRecord, JsonRecord, records, stringOrNull } from '../provider-http.client';
import {
  integerInRange,
  optionalBoolean,
  optionalString,
  optionalStrings,
  requiredString,
} from '../tool-input.readers';
import { GoogleCall } from './google-api';

const MESSAGES = ['gmail', 'v1', 'users', 'me', 'messages'];
// One address, loosely: enough to refuse header injection and obvious mistakes; Gmail checks the rest.
const EMAIL = /^[^\s@<>",;]+@[^\s@<>",;]+$/;
const HEADERS = ['From', 'To', 'Subject', 'Date'];
// RFC 5322 §2.1.1: a line SHOULD stay within 78 characters; RFC 2047: an encoded-word MUST within
// 75. 42 bytes make a 68-character word (`=?UTF-8?B?` + 56 base64 + `?=`), which fits even after
// `Subject: ` on the first line.
const MAX_LINE = 78;
const ENCODED_WORD_BYTES = 42;

/** Google.SendEmail and Google.ListEmails over the Gmail API. */
export function gmailExecutors(call: GoogleCall): Record<string, ToolExecutor> {
  return {
    'Google.SendEmail': {
      async execute(input, context) {
        const raw = mimeMessage({
          to: [address(requiredString(input, 'recipient'), 'recipient')],
          cc: (optionalStrings(input, 'cc') ?? []).map((value) => address(value, 'cc')),
          bcc: (optionalStrings(input, 'bcc') ?? []).map((value) => address(value, 'bcc')),
          subject: requiredString(input, 'subject'),
          body: requiredString(input, 'body'),
          html: optionalBoolean(input, 'is_html') ?? false,
        });
        const sent = await call(
          { method: 'POST', path: [...MESSAGES, 'send'], json: { raw } },
          context,
        );
        return {
          id: stringOrNull(field(sent, 'id')),
          thread_id: stringOrNull(field(sent, 'threadId')),
          label_ids: (Array.isArray(field(sent, 'labelIds'))
            ? (field(sent, 'labelIds') as unknown[])
            : []
          ).filter((label): label is string => typeof label === 'string'),
        };
      },
    },
    'Google.ListEmails': {
      async execute(input, context) {
        const unreadOnly = optionalBoolean(input, 'unread_only') ?? false;
        const includeBody = optionalBoolean(input, 'include_body') ?? false;
        const query = [optionalString(input, 'query')?.trim(), unreadOnly ? 'is:unread' : undefined]
          .filter(Boolean)
          .join(' ');
        const listed = await call(
          {
            method: 'GET',
            path: MESSAGES,
            query: {
              q: query || undefined,
              maxResults: integerInRange(input, 'max_results', { min: 1, max: 100, fallback: 10 }),
            },
          },
          context,
        );
        const ids = records(field(listed, 'messages'))
          .map((message) => stringOrNull(message.id))
          .filter((id): id is string => id !== null);
        const emails = await Promise.all(
          ids.map(async (id) => {
            const message = await call(
              {
                method: 'GET',
                path: [...MESSAGES, id],
                query: includeBody
                  ? { format: 'full' }
                  : { format: 'metadata', metadataHeaders: HEADERS },
              },
              context,
            );
            return summary(message, includeBody);
          }),
        );
        const next = stringOrNull(field(listed, 'nextPageToken'));
        return { emails, ...(next && { next_page_token: next }) };
      },
    },
  };
}

function address(value: string, name: string): string {
  const trimmed = value.trim();
  if (!EMAIL.test(trimmed)) {
    throw new ToolExecutionError(`${name} "${value}" is not an email address.`);
  }
  return trimmed;
}

/** An RFC 5322 message, base64url-encoded as Gmail's `raw` wants; the body is base64 UTF-8. */
export function mimeMessage(message: {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  html: boolean;
}): string {
  const addresses = (name: string, list: string[]) =>
    list.length > 0 ? [fold(name, list.join(', ').split(' '))] : [];
  const lines = [
    ...addresses('To', message.to),
    ...addresses('Cc', message.cc),
    ...addresses('Bcc', message.bcc),
    fold('Subject', subjectWords(message.subject)),
    'MIME-Version: 1.0',
    `Content-Type: text/${message.html ? 'html' : 'plain'}; charset="UTF-8"`,
    'Content-Transfer-Encoding: base64',
    '',
    wrap(Buffer.from(message.body, 'utf8').toString('base64')),
  ];
  return Buffer.from(lines.join('\r\n'), 'utf8').toString('base64url');
}

/**
 * The subject's words: as they are in printable ASCII, else RFC 2047 encoded-words of at most 75
 * characters (42 UTF-8 bytes each, never splitting a character). Line breaks would start a new
 * header, so never raw.
 */
function subjectWords(value: string): string[] {
  const flat = value.replace(/[\r\n]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(flat)) return flat.split(' ');
  const chunks = [''];
  for (const char of flat) {
    if (Buffer.byteLength(chunks[chunks.length - 1] + char, 'utf8') > ENCODED_WORD_BYTES) {
      chunks.push('');
    }
    chunks[chunks.length - 1] += char;
  }
  // Whitespace between adjacent encoded-words is not part of the text (RFC 2047 §6.2).
  return chunks.map((chunk) => `=?UTF-8?B?${Buffer.from(chunk, 'utf8').toString('base64')}?=`);
}

/** `Name: word word ...`, folded before a word that would take the line past 78 characters. */
function fold(name: string, words: string[]): string {
  let header = `${name}:`;
  let lineLength = header.length;
  let lineHasWord = false;
  for (const word of words) {
    // A folded line must hold more than whitespace, so an empty word (a double space) stays put.
    if (word !== '' && lineHasWord && lineLength + 1 + word.length > MAX_LINE) {
      header += '\r\n';
      lineLength = 0;
    }
    header += ` ${word}`;
    lineLength += 1 + word.length;
    lineHasWord ||= word !== '';
  }
  return header;
}

function wrap(base64: string): string {
  return base64.replace(/.{1,76}/g, (line) => `${line}\r\n`).trimEnd();
}

function summary(message: unknown, includeBody: boolean) {
  const headers = new Map<string, string>();
  for (const header of records(field(message, 'payload', 'headers'))) {
    const name = stringOrNull(header.name);
    const value = stringOrNull(header.value);
    if (name && value !== null && !headers.has(name.toLowerCase())) {
      headers.set(name.toLowerCase(), value);
    }
  }
  return {
    id: stringOrNull(field(message, 'id')),
    thread_id: stringOrNull(field(message, 'threadId')),
    from: headers.get('from') ?? null,
    to: headers.get('to') ?? null,
    subject: headers.get('subject') ?? null,
    date: headers.get('date') ?? null,
    snippet: stringOrNull(field(message, 'snippet')),
    ...(includeBody && { body: plainText(field(message, 'payload')) }),
  };
}

/** The first text/plain part, else the first text/html part with its tags dropped. */
function plainText(payload: unknown): string | null {
  const parts: JsonRecord[] = [];
  const walk = (part: unknown) => {
    if (!isRecord(part)) return;
    parts.push(part);
    for (const child of records(part.parts)) walk(child);
  };
  walk(payload);
  const decode = (part: JsonRecord | undefined): string | null => {
    const data = stringOrNull(field(part, 'body', 'data'));
    return data === null ? null : Buffer.from(data, 'base64url').toString('utf8');
  };
  const text = decode(parts.find((part) => part.mimeType === 'text/plain'));
  if (text !== null) return text;
  const html = decode(parts.find((part) => part.mimeType === 'text/html'));
  return html === null ? null : htmlToText(html);
}

const SCRIPT_OR_STYLE = /<(script|style)/iy;

/**
 * The text of an HTML body: script and style elements dropped, every other tag a space, runs of
 * whitespace one space. One pass, linear in the length: the body is whatever a stranger mailed,
 * and the regular expressions this replaces took quadratic time on `<<<<...` or an unclosed
 * `<script`. A `<` that no `>` follows is text.
 */
export function htmlToText(html: string): string {
  const unclosed = new Set<string>();
  let text = '';
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) break;
    text += html.slice(at, open);
    SCRIPT_OR_STYLE.lastIndex = open;
    const element = SCRIPT_OR_STYLE.exec(html)?.[1].toLowerCase();
    if (element && !unclosed.has(element)) {
      const closer = new RegExp(`</${element}>`, 'gi');
      closer.lastIndex = open;
      const close = closer.exec(html);
      if (close) {
        at = close.index + close[0].length;
        continue;
      }
      // No closer from here on: none will be found from any later position either.
      unclosed.add(element);
    }
    const end = html.indexOf('>', open + 1);
    if (end < 0) {
      at = open;
      break;
    }
    // "<>" is not a tag: its "<" is text.
    text += end === open + 1 ? '<' : ' ';
    at = end === open + 1 ? open + 1 : end + 1;
  }
  text += html.slice(at);
  return text.replace(/\s+/g, ' ').trim();
}
