import { Server } from 'node:http';
import { FakeHttpApi, FakeHttpReply, RecordedRequest } from './fake-http-api';

const SCOPE = 'https://www.googleapis.com/auth/';
const MAIL = 'https://mail.google.com/';

/** The authorized Google account and its primary calendar's time zone. */
export const GOOGLE_ACCOUNT = { email: 'dana@example.com', timeZone: 'Europe/Lisbon' };
/** A secondary calendar the account can write to. */
export const TEAM_CALENDAR = { id: 'team@group.calendar.google.com', timeZone: 'America/New_York' };

export interface MailboxMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  /** Epoch ms, as Gmail's `internalDate` (a string there). */
  internalDate: number;
  headers: { name: string; value: string }[];
  snippet: string;
  text?: string;
  html?: string;
}

/** The inbox the fake starts with, newest first. */
export const INBOX: readonly MailboxMessage[] = [
  {
    id: '195921a3c4d5e6f7',
    threadId: '195921a3c4d5e6f7',
    labelIds: ['UNREAD', 'IMPORTANT', 'CATEGORY_PERSONAL', 'INBOX'],
    internalDate: Date.UTC(2025, 2, 14, 9, 12, 0),
    headers: [
      { name: 'Delivered-To', value: 'dana@example.com' },
      { name: 'From', value: 'Ana Silva <ana@example.com>' },
      { name: 'To', value: 'Dana <dana@example.com>' },
      { name: 'Subject', value: 'Q1 budget review' },
      { name: 'Date', value: 'Fri, 14 Mar 2025 09:12:00 +0000' },
      { name: 'Message-ID', value: '<CAF1q2w3e4r5t6@mail.gmail.com>' },
    ],
    snippet: 'Hi Dana, the Q1 numbers are in. Can we go through them before Monday?',
    text: 'Hi Dana,\r\n\r\nThe Q1 numbers are in. Can we go through them before Monday?\r\n\r\nAna\r\n',
    html: '<div dir="ltr">Hi Dana,<br><br>The Q1 numbers are in. Can we go through them before Monday?<br><br>Ana</div>',
  },
  {
    id: '1958f0b2a1c3d4e5',
    threadId: '1958f0b2a1c3d4e5',
    labelIds: ['CATEGORY_UPDATES', 'INBOX'],
    internalDate: Date.UTC(2025, 2, 13, 17, 40, 0),
    headers: [
      { name: 'From', value: 'Vendor Billing <billing@vendor.example>' },
      { name: 'To', value: 'dana@example.com' },
      { name: 'Subject', value: 'Invoice #1042' },
      { name: 'Date', value: 'Thu, 13 Mar 2025 17:40:00 +0000' },
    ],
    snippet: 'Your invoice #1042 for March is ready.',
    html: '<html><head><style>p{color:red}</style></head><body><p>Your invoice <b>#1042</b> for March is ready.</p></body></html>',
  },
  {
    id: '1958a9c8b7d6e5f4',
    threadId: '1958a9c8b7d6e5f4',
    labelIds: ['UNREAD', 'CATEGORY_PERSONAL', 'INBOX'],
    internalDate: Date.UTC(2025, 2, 12, 12, 5, 0),
    headers: [
      { name: 'From', value: 'Ana Silva <ana@example.com>' },
      { name: 'To', value: 'dana@example.com' },
      { name: 'Subject', value: 'Lunch on Friday?' },
      { name: 'Date', value: 'Wed, 12 Mar 2025 12:05:00 +0000' },
    ],
    snippet: 'Are you free for lunch on Friday?',
    text: 'Are you free for lunch on Friday?\r\n',
  },
];

export interface CalendarEvent {
  id: string;
  summary: string;
  location?: string;
  start: { dateTime?: string; date?: string; timeZone?: string };
  end: { dateTime?: string; date?: string; timeZone?: string };
  attendees?: { email: string; responseStatus: string; organizer?: boolean; self?: boolean }[];
}

/** The primary calendar's events the fake starts with (times in UTC). */
export const PRIMARY_EVENTS: readonly CalendarEvent[] = [
  {
    id: 'b1past0313',
    summary: 'Design review',
    start: { dateTime: '2025-03-13T10:00:00Z' },
    end: { dateTime: '2025-03-13T11:00:00Z' },
  },
  {
    id: 'c2ongoing0314',
    summary: 'Hiring sync',
    start: { dateTime: '2025-03-14T14:00:00Z' },
    end: { dateTime: '2025-03-14T15:00:00Z' },
  },
  {
    id: 'd3budget0314',
    summary: 'Q1 budget review',
    location: 'Room 2',
    start: { dateTime: '2025-03-14T16:00:00Z' },
    end: { dateTime: '2025-03-14T17:00:00Z' },
    attendees: [
      { email: 'dana@example.com', responseStatus: 'accepted', organizer: true, self: true },
      { email: 'ana@example.com', responseStatus: 'needsAction' },
    ],
  },
  {
    id: 'e4offsite0319',
    summary: 'Company offsite',
    start: { date: '2025-03-19' },
    end: { date: '2025-03-20' },
  },
  {
    id: 'f5later0325',
    summary: 'Quarterly planning',
    start: { dateTime: '2025-03-25T10:00:00Z' },
    end: { dateTime: '2025-03-25T12:00:00Z' },
  },
];

/** A message Gmail accepted through messages.send, as the fake decoded it. */
export interface SentEmail {
  id: string;
  /** The `raw` field exactly as sent (base64url). */
  raw: string;
  /** The decoded RFC 5322 text. */
  source: string;
  /** Header names in lower case, RFC 2047 words decoded. */
  headers: Record<string, string>;
  contentType: string;
  /** The decoded body. */
  body: string;
}

interface StoredEvent extends CalendarEvent {
  calendarId: string;
  description?: string;
  created: string;
}

/** What the fake holds; reset between tests. */
class GoogleAccountState {
  readonly tokens = new Map<string, readonly string[]>();
  readonly sent: SentEmail[] = [];
  readonly created: StoredEvent[] = [];
  mailbox: MailboxMessage[] = [];
  events: StoredEvent[] = [];

  constructor() {
    this.reset();
  }

  reset(): void {
    this.tokens.clear();
    this.sent.length = 0;
    this.created.length = 0;
    this.mailbox = INBOX.map((message) => ({ ...message }));
    this.events = PRIMARY_EVENTS.map((event) => ({
      ...event,
      calendarId: GOOGLE_ACCOUNT.email,
      created: '2025-03-01T10:00:00.000Z',
    }));
  }
}

/**
 * Gmail v1 and Calendar v3 on one base URL, as www.googleapis.com serves them, as far as the Google
 * toolkit uses them: messages.send (base64url RFC 5322 `raw`), messages.list and messages.get,
 * calendars.get, events.list and events.insert. Tokens carry scopes and every method checks its
 * own, as Google does; errors are Google's `{error: {code, message, errors, status}}`.
 */
export class FakeGoogleApi extends FakeHttpApi {
  private constructor(
    server: Server,
    url: string,
    private readonly state: GoogleAccountState = new GoogleAccountState(),
  ) {
    super(server, url, (request) => answer(request, state));
  }

  static start(): Promise<FakeGoogleApi> {
    return FakeHttpApi.listen((server: Server, url: string) => new FakeGoogleApi(server, url));
  }

  /** Makes `token` a valid access token with these scopes, as Google's OAuth would have issued it. */
  issueToken(token: string, scopes: readonly string[]): void {
    this.state.tokens.set(token, scopes);
  }

  /** The messages sent through messages.send, oldest first. */
  get sent(): readonly SentEmail[] {
    return this.state.sent;
  }

  /** The events created through events.insert, oldest first. */
  get createdEvents(): readonly (CalendarEvent & { calendarId: string; description?: string })[] {
    return this.state.created;
  }

  override reset(): void {
    super.reset();
    this.state.reset();
  }
}

type Handler = (
  request: RecordedRequest,
  match: string[],
  state: GoogleAccountState,
) => FakeHttpReply;

interface Route {
  method: string;
  path: RegExp;
  /** Any one of them allows the call. */
  scopes: string[];
  service: string;
  handle: Handler;
}

const GMAIL_READ = [`${SCOPE}gmail.readonly`, `${SCOPE}gmail.modify`, MAIL];
const CALENDAR_EVENTS_READ = [
  `${SCOPE}calendar`,
  `${SCOPE}calendar.readonly`,
  `${SCOPE}calendar.events`,
  `${SCOPE}calendar.events.readonly`,
];

const ROUTES: Route[] = [
  {
    method: 'POST',
    path: /^\/gmail\/v1\/users\/me\/messages\/send$/,
    scopes: [`${SCOPE}gmail.send`, `${SCOPE}gmail.compose`, `${SCOPE}gmail.modify`, MAIL],
    service: 'gmail.googleapis.com',
    handle: sendMessage,
  },
  {
    method: 'GET',
    path: /^\/gmail\/v1\/users\/me\/messages$/,
    scopes: GMAIL_READ,
    service: 'gmail.googleapis.com',
    handle: listMessages,
  },
  {
    method: 'GET',
    path: /^\/gmail\/v1\/users\/me\/messages\/([^/]+)$/,
    scopes: GMAIL_READ,
    service: 'gmail.googleapis.com',
    handle: getMessage,
  },
  {
    method: 'GET',
    path: /^\/calendar\/v3\/calendars\/([^/]+)$/,
    // calendars.get: the calendar's metadata needs a calendar-level scope, not an events one.
    scopes: [
      `${SCOPE}calendar`,
      `${SCOPE}calendar.readonly`,
      `${SCOPE}calendar.calendars`,
      `${SCOPE}calendar.calendars.readonly`,
    ],
    service: 'calendar-json.googleapis.com',
    handle: getCalendar,
  },
  {
    method: 'GET',
    path: /^\/calendar\/v3\/calendars\/([^/]+)\/events$/,
    scopes: CALENDAR_EVENTS_READ,
    service: 'calendar-json.googleapis.com',
    handle: listEvents,
  },
  {
    method: 'POST',
    path: /^\/calendar\/v3\/calendars\/([^/]+)\/events$/,
    scopes: [`${SCOPE}calendar`, `${SCOPE}calendar.events`],
    service: 'calendar-json.googleapis.com',
    handle: insertEvent,
  },
];

function answer(request: RecordedRequest, state: GoogleAccountState): FakeHttpReply {
  const route = ROUTES.find((r) => r.method === request.method && r.path.test(request.path));
  if (!route) return googleError(404, 'NOT_FOUND', 'notFound', 'Not Found');
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  const scopes = token ? state.tokens.get(token) : undefined;
  if (!scopes) {
    return googleError(
      401,
      'UNAUTHENTICATED',
      'authError',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    );
  }
  if (!route.scopes.some((scope) => scopes.includes(scope))) {
    return {
      status: 403,
      body: {
        error: {
          code: 403,
          message: 'Request had insufficient authentication scopes.',
          errors: [
            {
              message: 'Insufficient Permission',
              domain: 'global',
              reason: 'insufficientPermissions',
            },
          ],
          status: 'PERMISSION_DENIED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
              domain: 'googleapis.com',
              metadata: { service: route.service },
            },
          ],
        },
      },
    };
  }
  const match = route.path.exec(request.path) ?? [];
  const reply = route.handle(request, match.slice(1).map(decodeURIComponent), state);
  return partial(reply, request.query.fields);
}

/** Google's partial responses, for top-level names only (`fields=timeZone,items`). */
function partial(reply: FakeHttpReply, fields: string | undefined): FakeHttpReply {
  if (!fields || reply === 'hang' || reply.status !== 200 || /[()/]/.test(fields)) return reply;
  const names = fields.split(',').map((name) => name.trim());
  const body = Object.fromEntries(
    Object.entries(reply.body as Record<string, unknown>).filter(([name]) => names.includes(name)),
  );
  return { ...reply, body };
}

function googleError(code: number, status: string, reason: string, message: string): FakeHttpReply {
  return {
    status: code,
    body: { error: { code, message, errors: [{ message, domain: 'global', reason }], status } },
  };
}

const badRequest = (message: string, reason = 'invalid') =>
  googleError(400, 'INVALID_ARGUMENT', reason, message);

// ---------------------------------------------------------------------------------------------
// Gmail

function sendMessage(
  request: RecordedRequest,
  _match: string[],
  state: GoogleAccountState,
): FakeHttpReply {
  const raw = field(request.body, 'raw');
  if (typeof raw !== 'string' || raw === '') {
    return badRequest(
      "'raw' RFC822 payload message string or uploading message via /upload/* URL required",
      'invalidArgument',
    );
  }
  // Gmail wants URL-safe base64 (RFC 4648 §5); '+' or '/' is refused.
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(raw)) {
    return badRequest(
      `Invalid value at 'message.raw' (TYPE_BYTES), Base64 decoding failed for "${raw.slice(0, 20)}..."`,
    );
  }
  const decoded = decodeMimeMessage(Buffer.from(raw, 'base64url').toString('utf8'));
  const recipients = ['to', 'cc', 'bcc'].some((name) => decoded.headers[name]?.trim());
  if (!recipients) return badRequest('Recipient address required', 'invalidArgument');
  const id = (0x195930000000000 + state.sent.length).toString(16);
  state.sent.push({ id, raw, ...decoded });
  state.mailbox.unshift({
    id,
    threadId: id,
    labelIds: ['SENT'],
    internalDate: Date.now(),
    headers: [
      { name: 'From', value: GOOGLE_ACCOUNT.email },
      ...Object.entries(decoded.headers)
        .filter(([name]) => name !== 'bcc')
        .map(([name, value]) => ({ name: canonicalHeader(name), value })),
    ],
    snippet: decoded.body.slice(0, 100),
    ...(decoded.contentType.startsWith('text/html')
      ? { html: decoded.body }
      : { text: decoded.body }),
  });
  return { status: 200, body: { id, threadId: id, labelIds: ['SENT'] } };
}

function listMessages(
  request: RecordedRequest,
  _match: string[],
  state: GoogleAccountState,
): FakeHttpReply {
  const maxResults = Number(request.query.maxResults ?? 100);
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > 500) {
    return badRequest(`Invalid maxResults: ${request.query.maxResults}`);
  }
  const offset = Number(request.query.pageToken ?? 0);
  const found = state.mailbox
    .filter((message) => matches(message, request.query.q ?? ''))
    .sort((a, b) => b.internalDate - a.internalDate);
  const page = found.slice(offset, offset + maxResults);
  if (found.length === 0) return { status: 200, body: { resultSizeEstimate: 0 } };
  return {
    status: 200,
    body: {
      messages: page.map((message) => ({ id: message.id, threadId: message.threadId })),
      ...(offset + maxResults < found.length && { nextPageToken: String(offset + maxResults) }),
      resultSizeEstimate: found.length,
    },
  };
}

/** A small part of Gmail's search syntax: `is:unread`, `from:`, `to:`, `subject:`, bare words. */
function matches(message: MailboxMessage, q: string): boolean {
  const header = (name: string) =>
    message.headers.find((h) => h.name.toLowerCase() === name)?.value.toLowerCase() ?? '';
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((term) => {
      const [operator, value] = term.includes(':') ? term.split(/:(.*)/s) : ['', term];
      switch (operator) {
        case 'is':
          return value === 'unread' ? message.labelIds.includes('UNREAD') : true;
        case 'from':
        case 'to':
        case 'subject':
          return header(operator).includes(value);
        default:
          return [
            header('subject'),
            message.snippet.toLowerCase(),
            (message.text ?? '').toLowerCase(),
          ].some((text) => text.includes(term));
      }
    });
}

function getMessage(
  request: RecordedRequest,
  [id]: string[],
  state: GoogleAccountState,
): FakeHttpReply {
  const message = state.mailbox.find((m) => m.id === id);
  if (!message) return googleError(404, 'NOT_FOUND', 'notFound', 'Requested entity was not found.');
  const format = (request.query.format ?? 'full').toLowerCase();
  if (!['minimal', 'full', 'metadata', 'raw'].includes(format)) {
    return badRequest(`Invalid value for "format": "${request.query.format}"`);
  }
  const base = {
    id: message.id,
    threadId: message.threadId,
    labelIds: message.labelIds,
    snippet: message.snippet,
    sizeEstimate: 2048,
    historyId: '1234567',
    internalDate: String(message.internalDate),
  };
  if (format === 'minimal') return { status: 200, body: base };
  const mimeType =
    message.text && message.html
      ? 'multipart/alternative'
      : message.html
        ? 'text/html'
        : 'text/plain';
  if (format === 'metadata') {
    const wanted = (request.queryValues.metadataHeaders ?? []).map((name) => name.toLowerCase());
    const headers = wanted.length
      ? message.headers.filter((h) => wanted.includes(h.name.toLowerCase()))
      : message.headers;
    return {
      status: 200,
      body: { ...base, payload: { partId: '', mimeType, filename: '', headers } },
    };
  }
  const part = (partId: string, type: string, content: string) => ({
    partId,
    mimeType: type,
    filename: '',
    headers: [{ name: 'Content-Type', value: `${type}; charset="UTF-8"` }],
    body: { size: Buffer.byteLength(content), data: Buffer.from(content).toString('base64url') },
  });
  const payload =
    message.text && message.html
      ? {
          partId: '',
          mimeType,
          filename: '',
          headers: message.headers,
          body: { size: 0 },
          parts: [part('0', 'text/plain', message.text), part('1', 'text/html', message.html)],
        }
      : { ...part('', mimeType, message.text ?? message.html ?? ''), headers: message.headers };
  return { status: 200, body: { ...base, payload } };
}

/** Decodes an RFC 5322 message: unfolded headers (RFC 2047 words decoded) and a decoded body. */
export function decodeMimeMessage(source: string): Omit<SentEmail, 'id' | 'raw'> {
  const split = /\r?\n\r?\n/.exec(source);
  const head = split ? source.slice(0, split.index) : source;
  const rawBody = split ? source.slice(split.index + split[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(
        line.slice(colon + 1).trim(),
      );
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const body =
    encoding === 'base64'
      ? Buffer.from(rawBody.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(rawBody)
        : rawBody;
  return { source, headers, contentType: headers['content-type'] ?? 'text/plain', body };
}

function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(
      /=\?([^?]+)\?([BQbq])\?([^?]*)\?=/g,
      (_word, _charset: string, kind: string, text: string) =>
        kind.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64').toString('utf8')
          : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function decodeQuotedPrintable(text: string): string {
  const escaped = text
    .replace(/=\r?\n/g, '')
    .replace(/%/g, '%25')
    .replace(/=([0-9A-F]{2})/gi, '%$1');
  return decodeURIComponent(escaped);
}

function canonicalHeader(name: string): string {
  return name.replace(
    /(^|-)([a-z])/g,
    (_match, dash: string, letter: string) => dash + letter.toUpperCase(),
  );
}

// ---------------------------------------------------------------------------------------------
// Calendar

function calendarOf(id: string): { id: string; timeZone: string; summary: string } | undefined {
  if (id === 'primary' || id === GOOGLE_ACCOUNT.email) {
    return {
      id: GOOGLE_ACCOUNT.email,
      timeZone: GOOGLE_ACCOUNT.timeZone,
      summary: GOOGLE_ACCOUNT.email,
    };
  }
  if (id === TEAM_CALENDAR.id) return { ...TEAM_CALENDAR, summary: 'Team' };
  return undefined;
}

const calendarNotFound = () => googleError(404, 'NOT_FOUND', 'notFound', 'Not Found');

function getCalendar(_request: RecordedRequest, [id]: string[]): FakeHttpReply {
  const calendar = calendarOf(id);
  if (!calendar) return calendarNotFound();
  return {
    status: 200,
    body: {
      kind: 'calendar#calendar',
      etag: '"k5e2bM1E6QmEb1M1Zl9oQ1Yz0aA"',
      id: calendar.id,
      summary: calendar.summary,
      timeZone: calendar.timeZone,
      conferenceProperties: { allowedConferenceSolutionTypes: ['hangoutsMeet'] },
    },
  };
}

function listEvents(
  request: RecordedRequest,
  [id]: string[],
  state: GoogleAccountState,
): FakeHttpReply {
  const calendar = calendarOf(id);
  if (!calendar) return calendarNotFound();
  const { timeMin, timeMax, orderBy, singleEvents } = request.query;
  for (const [name, value] of [
    ['timeMin', timeMin],
    ['timeMax', timeMax],
  ] as const) {
    if (value !== undefined && !RFC3339.test(value))
      return badRequest(`Bad Request`, `invalid ${name}`);
  }
  if (orderBy === 'startTime' && singleEvents !== 'true') {
    return badRequest(
      'The requested ordering is not available for the particular query.',
      'badRequest',
    );
  }
  const maxResults = Number(request.query.maxResults ?? 250);
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > 2500) {
    return badRequest('Invalid value for max results.');
  }
  const from = timeMin ? Date.parse(timeMin) : -Infinity;
  const until = timeMax ? Date.parse(timeMax) : Infinity;
  const items = state.events
    .filter((event) => event.calendarId === calendar.id)
    // timeMin bounds an event's end, timeMax its start (both exclusive), as Calendar documents.
    .filter(
      (event) =>
        instantOf(event.end, calendar.timeZone) > from &&
        instantOf(event.start, calendar.timeZone) < until,
    )
    .sort((a, b) => instantOf(a.start, calendar.timeZone) - instantOf(b.start, calendar.timeZone))
    .slice(0, maxResults)
    .map(eventResource);
  return {
    status: 200,
    body: {
      kind: 'calendar#events',
      etag: '"p32g9lbt0l8u8a0o"',
      summary: calendar.summary,
      updated: '2025-03-14T10:00:00.000Z',
      timeZone: calendar.timeZone,
      accessRole: 'owner',
      defaultReminders: [{ method: 'popup', minutes: 10 }],
      items,
    },
  };
}

function insertEvent(
  request: RecordedRequest,
  [id]: string[],
  state: GoogleAccountState,
): FakeHttpReply {
  const calendar = calendarOf(id);
  if (!calendar) return calendarNotFound();
  const sendUpdates = request.query.sendUpdates;
  if (sendUpdates !== undefined && !['all', 'externalOnly', 'none'].includes(sendUpdates)) {
    return badRequest(`Invalid value for "sendUpdates": "${sendUpdates}"`);
  }
  const body = request.body;
  const start = field(body, 'start');
  const end = field(body, 'end');
  if (!isTime(start)) return badRequest('Missing start time.', 'required');
  if (!isTime(end)) return badRequest('Missing end time.', 'required');
  const times: Record<'start' | 'end', number> = { start: NaN, end: NaN };
  for (const [name, time] of [
    ['start', start],
    ['end', end],
  ] as const) {
    if (time.timeZone !== undefined && !isZone(time.timeZone)) {
      return badRequest(`Invalid time zone definition for ${name} time.`);
    }
    if (!RFC3339_LOCAL.test(time.dateTime)) return badRequest(`Invalid ${name} time.`);
    if (!OFFSET.test(time.dateTime) && time.timeZone === undefined) {
      return badRequest(`Missing time zone definition for ${name} time.`, 'required');
    }
    times[name] = instantOf(time, calendar.timeZone);
  }
  if (!(times.end > times.start))
    return badRequest('The specified time range is empty.', 'timeRangeEmpty');
  const attendees = field(body, 'attendees');
  const emails = Array.isArray(attendees) ? attendees.map((a) => field(a, 'email')) : [];
  if (
    emails.some((email) => typeof email !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
  ) {
    return badRequest('Invalid attendee email.');
  }
  const summary = field(body, 'summary');
  const description = field(body, 'description');
  const location = field(body, 'location');
  const event: StoredEvent = {
    id: `q8a${(state.created.length + 1).toString(36).padStart(4, '0')}evt`,
    calendarId: calendar.id,
    summary: typeof summary === 'string' ? summary : '',
    ...(typeof description === 'string' && { description }),
    ...(typeof location === 'string' && { location }),
    // Calendar answers the times in the event's zone, with its offset.
    start: {
      dateTime: formatInZone(times.start, start.timeZone ?? calendar.timeZone),
      timeZone: start.timeZone ?? calendar.timeZone,
    },
    end: {
      dateTime: formatInZone(times.end, end.timeZone ?? calendar.timeZone),
      timeZone: end.timeZone ?? calendar.timeZone,
    },
    ...(emails.length > 0 && {
      attendees: (emails as string[]).map((email) => ({ email, responseStatus: 'needsAction' })),
    }),
    created: new Date().toISOString(),
  };
  state.events.push(event);
  state.created.push(event);
  return { status: 200, body: eventResource(event) };
}

function eventResource(event: StoredEvent) {
  return {
    kind: 'calendar#event',
    etag: '"3481234567890000"',
    id: event.id,
    status: 'confirmed',
    htmlLink: `https://www.google.com/calendar/event?eid=${Buffer.from(`${event.id} ${event.calendarId}`).toString('base64url')}`,
    created: event.created,
    updated: event.created,
    summary: event.summary,
    ...(event.description !== undefined && { description: event.description }),
    ...(event.location !== undefined && { location: event.location }),
    creator: { email: GOOGLE_ACCOUNT.email, self: true },
    organizer: { email: event.calendarId, self: true },
    start: event.start,
    end: event.end,
    iCalUID: `${event.id}@google.com`,
    sequence: 0,
    ...(event.attendees && { attendees: event.attendees }),
    reminders: { useDefault: true },
    eventType: 'default',
  };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;
const RFC3339_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?$/i;
const OFFSET = /(?:Z|[+-]\d{2}:\d{2})$/i;

function isTime(value: unknown): value is { dateTime: string; timeZone?: string } {
  const timeZone = field(value, 'timeZone');
  return (
    typeof field(value, 'dateTime') === 'string' &&
    (timeZone === undefined || typeof timeZone === 'string')
  );
}

/** An event time as epoch ms: an offset wins, else its own zone, else the calendar's. */
function instantOf(
  time: { dateTime?: string; date?: string; timeZone?: string },
  calendarZone: string,
): number {
  if (time.date !== undefined) return localToUtc(`${time.date}T00:00:00`, calendarZone);
  const dateTime = time.dateTime ?? '';
  return OFFSET.test(dateTime)
    ? Date.parse(dateTime)
    : localToUtc(dateTime, time.timeZone ?? calendarZone);
}

function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function offsetMinutes(zone: string, utc: number): number {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(utc)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
}

function localToUtc(local: string, zone: string): number {
  const guess = Date.parse(`${local}Z`);
  const first = offsetMinutes(zone, guess);
  const utc = guess - first * 60_000;
  const second = offsetMinutes(zone, utc);
  return second === first ? utc : guess - second * 60_000;
}

function formatInZone(utc: number, zone: string): string {
  const offset = offsetMinutes(zone, utc);
  const local = new Date(utc + offset * 60_000).toISOString().slice(0, 19);
  if (offset === 0) return `${local}Z`;
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}
