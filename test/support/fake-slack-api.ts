import { Server } from 'node:http';
import { FakeHttpApi, FakeHttpReply, RecordedRequest } from './fake-http-api';

export const SLACK_TEAM = { id: 'T08ACME0001', domain: 'acme' };
export const SLACK_USER = 'U08DANA0001';

interface Conversation {
  id: string;
  name: string;
  type: 'public_channel' | 'private_channel' | 'mpim' | 'im';
  is_archived: boolean;
  num_members?: number;
  topic: string;
}

/** The fake workspace, as conversations.list would list it. */
export const SLACK_CONVERSATIONS: readonly Conversation[] = [
  {
    id: 'C08GENERAL1',
    name: 'general',
    type: 'public_channel',
    is_archived: false,
    num_members: 42,
    topic: 'Company-wide announcements',
  },
  {
    id: 'C08RANDOM01',
    name: 'random',
    type: 'public_channel',
    is_archived: false,
    num_members: 40,
    topic: '',
  },
  {
    id: 'C08LEADERS1',
    name: 'leadership',
    type: 'private_channel',
    is_archived: false,
    num_members: 5,
    topic: 'Weekly priorities',
  },
  {
    id: 'C08OLDPROJ1',
    name: 'project-apollo',
    type: 'public_channel',
    is_archived: true,
    num_members: 7,
    topic: 'Shipped in 2023',
  },
  { id: 'D08DANAIM01', name: '', type: 'im', is_archived: false, topic: '' },
];

/** The scope conversations.list needs for each conversation type. */
const READ_SCOPE: Readonly<Record<Conversation['type'], string>> = {
  public_channel: 'channels:read',
  private_channel: 'groups:read',
  mpim: 'mpim:read',
  im: 'im:read',
};

export interface PostedSlackMessage {
  channel: string;
  ts: string;
  text: string;
  thread_ts?: string;
  blocks?: unknown;
}

type SlackArgs = Record<string, unknown>;

/**
 * Slack's Web API (under `/api`, so the service's base URL is `${url}/api`) as far as the Slack toolkit uses it: chat.postMessage (JSON body),
 * chat.getPermalink and conversations.list (query arguments), user tokens as `Authorization:
 * Bearer` with their scopes. Like Slack, it answers HTTP 200 with `{ok: false, error}` when it
 * refuses, and reads JSON bodies only for write methods.
 */
export class FakeSlackApi extends FakeHttpApi {
  private constructor(
    server: Server,
    url: string,
    private readonly tokens = new Map<string, readonly string[]>(),
    /** What chat.postMessage posted, oldest first. */
    readonly posted: PostedSlackMessage[] = [],
  ) {
    super(server, url, (request) => answer(request, tokens, posted));
  }

  static start(): Promise<FakeSlackApi> {
    return FakeHttpApi.listen((server: Server, url: string) => new FakeSlackApi(server, url));
  }

  /** Makes `token` a valid user token with these scopes, as Slack's OAuth would have issued it. */
  issueToken(token: string, scopes: readonly string[]): void {
    this.tokens.set(token, scopes);
  }

  override reset(): void {
    super.reset();
    this.tokens.clear();
    this.posted.length = 0;
  }
}

function answer(
  request: RecordedRequest,
  tokens: ReadonlyMap<string, readonly string[]>,
  posted: PostedSlackMessage[],
): FakeHttpReply {
  // Slack serves its methods under /api (https://slack.com/api/chat.postMessage).
  const method = /^\/api\/([\w.]+)$/.exec(request.path)?.[1];
  const handler = method === undefined ? undefined : METHODS[method];
  if (!handler) return ok(false, { error: 'unknown_method' });
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return ok(false, { error: 'not_authed' });
  const scopes = tokens.get(token);
  if (!scopes) return ok(false, { error: 'invalid_auth' });
  const args = argumentsOf(request, handler.write);
  return handler.run(args, { scopes, posted });
}

interface Call {
  scopes: readonly string[];
  posted: PostedSlackMessage[];
}

const METHODS: Record<
  string,
  { write: boolean; run: (args: SlackArgs, call: Call) => FakeHttpReply }
> = {
  'chat.postMessage': { write: true, run: postMessage },
  'chat.getPermalink': { write: false, run: getPermalink },
  'conversations.list': { write: false, run: listConversations },
};

/** Query arguments always; a JSON body only for write methods (Slack ignores it elsewhere). */
function argumentsOf(request: RecordedRequest, write: boolean): SlackArgs {
  const args: SlackArgs = { ...request.query };
  const json = /^application\/json/i.test(request.headers['content-type'] ?? '');
  if (write && json && typeof request.body === 'object' && request.body !== null) {
    Object.assign(args, request.body);
  }
  return args;
}

function postMessage(args: SlackArgs, { scopes, posted }: Call): FakeHttpReply {
  if (!scopes.includes('chat:write')) return missingScope('chat:write', scopes);
  const channel = findChannel(args.channel);
  if (!channel) return ok(false, { error: 'channel_not_found' });
  if (channel.is_archived) return ok(false, { error: 'is_archived' });
  const text = typeof args.text === 'string' ? args.text : '';
  if (text === '' && !Array.isArray(args.blocks)) return ok(false, { error: 'no_text' });
  const ts = `1741962600.${String(100 + posted.length).padStart(6, '0')}`;
  const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
  posted.push({ channel: channel.id, ts, text, thread_ts: threadTs, blocks: args.blocks });
  return ok(true, {
    channel: channel.id,
    ts,
    message: {
      user: SLACK_USER,
      type: 'message',
      ts,
      text,
      team: SLACK_TEAM.id,
      ...(threadTs && { thread_ts: threadTs, parent_user_id: SLACK_USER }),
      ...(Array.isArray(args.blocks) && { blocks: args.blocks }),
    },
  });
}

function getPermalink(args: SlackArgs, { posted }: Call): FakeHttpReply {
  const channel = findChannel(args.channel);
  if (!channel) return ok(false, { error: 'channel_not_found' });
  const message = posted.find((m) => m.channel === channel.id && m.ts === args.message_ts);
  if (!message) return ok(false, { error: 'message_not_found' });
  const base = `https://${SLACK_TEAM.domain}.slack.com/archives/${channel.id}/p${message.ts.replace('.', '')}`;
  return ok(true, {
    channel: channel.id,
    permalink: message.thread_ts
      ? `${base}?thread_ts=${message.thread_ts}&cid=${channel.id}`
      : base,
  });
}

function listConversations(args: SlackArgs, { scopes }: Call): FakeHttpReply {
  const types = String(args.types ?? 'public_channel').split(',');
  const unknown = types.find((type) => !(type in READ_SCOPE));
  if (unknown) return ok(false, { error: 'invalid_types' });
  for (const type of types) {
    const needed = READ_SCOPE[type as Conversation['type']];
    if (!scopes.includes(needed)) return missingScope(needed, scopes);
  }
  const excludeArchived = args.exclude_archived === 'true' || args.exclude_archived === '1';
  const limit = Number(args.limit ?? 100);
  if (!Number.isInteger(limit) || limit < 1) return ok(false, { error: 'invalid_limit' });
  const listed = SLACK_CONVERSATIONS.filter(
    (c) => types.includes(c.type) && !(excludeArchived && c.is_archived),
  );
  const page = listed.slice(0, Math.min(limit, 1000));
  return ok(true, {
    channels: page.map(conversationObject),
    response_metadata: {
      next_cursor:
        listed.length > page.length ? Buffer.from(`id:${page.at(-1)?.id}`).toString('base64') : '',
    },
  });
}

/** A conversation object as Slack renders it (most flags kept, a few left out). */
function conversationObject(c: Conversation) {
  if (c.type === 'im') {
    return {
      id: c.id,
      created: 1700000000,
      is_im: true,
      is_org_shared: false,
      user: 'USLACKBOT',
      is_user_deleted: false,
      priority: 0,
    };
  }
  return {
    id: c.id,
    name: c.name,
    is_channel: c.type === 'public_channel',
    is_group: c.type === 'private_channel',
    is_im: false,
    is_mpim: c.type === 'mpim',
    is_private: c.type !== 'public_channel',
    created: 1700000000,
    is_archived: c.is_archived,
    is_general: c.name === 'general',
    name_normalized: c.name,
    is_shared: false,
    is_member: true,
    topic: {
      value: c.topic,
      creator: c.topic ? SLACK_USER : '',
      last_set: c.topic ? 1700000100 : 0,
    },
    purpose: { value: '', creator: '', last_set: 0 },
    previous_names: [],
    num_members: c.num_members,
  };
}

/** By id, or by name with or without '#', as chat.postMessage accepts. */
function findChannel(value: unknown): Conversation | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return SLACK_CONVERSATIONS.find(
    (c) => c.id === value || (c.name !== '' && c.name === value.replace(/^#/, '')),
  );
}

function missingScope(needed: string, provided: readonly string[]): FakeHttpReply {
  return ok(false, { error: 'missing_scope', needed, provided: provided.join(',') });
}

/** Slack answers HTTP 200 either way; `ok` says which. */
function ok(success: boolean, body: Record<string, unknown>): FakeHttpReply {
  return { status: 200, body: { ok: success, ...body } };
}
