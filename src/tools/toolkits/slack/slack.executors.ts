import {
  ToolExecutionContext,
  ToolExecutionError,
  ToolExecutor,
} from '../../execution/tool-executor';
import { requireAccessToken } from '../provider-credentials';
import {
  field,
  isRecord,
  numberOrNull,
  ProviderHttpClient,
  providerError,
  ProviderRequest,
  records,
  stringOrNull,
} from '../provider-http.client';
import {
  integerInRange,
  nonBlankString,
  optionalBoolean,
  optionalObject,
  optionalString,
  optionalStrings,
} from '../tool-input.readers';

const PROVIDER = 'Slack';

/** Slack.* over Slack's Web API, as the authorized user (OAuth2 bearer token). */
export function slackExecutors(
  http: ProviderHttpClient,
  baseUrl: string,
): Record<string, ToolExecutor> {
  /** Slack answers 200 with `{ok: false, error: "channel_not_found"}` for most failures. */
  const call = async (
    method: string,
    request: Pick<ProviderRequest, 'method' | 'query' | 'json'>,
    context: ToolExecutionContext,
  ): Promise<Record<string, unknown>> => {
    const token = requireAccessToken(context, PROVIDER);
    const response = await http.request(PROVIDER, {
      ...request,
      baseUrl,
      path: [method],
      headers: { authorization: `Bearer ${token}` },
      signal: context.signal,
      secrets: [token],
    });
    const body = response.body;
    if (response.status >= 200 && response.status < 300 && isRecord(body) && body.ok === true) {
      return body;
    }
    const error = stringOrNull(field(body, 'error'));
    if (response.status >= 200 && response.status < 300) {
      throw new ToolExecutionError(`Slack refused ${method}: ${error ?? 'unknown error'}`);
    }
    throw providerError(PROVIDER, response.status, error ?? undefined, [token]);
  };

  return {
    'Slack.SendMessage': {
      async execute(input, context) {
        const blocks = optionalObject(input, 'blocks');
        if (blocks !== undefined && !Array.isArray(blocks.blocks)) {
          throw new ToolExecutionError('blocks must be the object {"blocks": [...]}.');
        }
        const posted = await call(
          'chat.postMessage',
          {
            method: 'POST',
            json: {
              channel: nonBlankString(input, 'channel'),
              text: nonBlankString(input, 'text'),
              thread_ts: optionalString(input, 'thread_ts'),
              blocks: blocks?.blocks,
            },
          },
          context,
        );
        const channel = stringOrNull(posted.channel);
        const ts = stringOrNull(posted.ts);
        return { channel, ts, permalink: await permalink(channel, ts, context) };
      },
    },
    'Slack.ListChannels': {
      async execute(input, context) {
        const listed = await call(
          'conversations.list',
          {
            method: 'GET',
            query: {
              types: (optionalStrings(input, 'types') ?? ['public_channel']).join(','),
              exclude_archived: optionalBoolean(input, 'exclude_archived') ?? true,
              limit: integerInRange(input, 'limit', { min: 1, max: 1000, fallback: 100 }),
            },
          },
          context,
        );
        return {
          channels: records(listed.channels).map((channel) => ({
            id: stringOrNull(channel.id),
            name: stringOrNull(channel.name),
            is_private: channel.is_private === true,
            num_members: numberOrNull(channel.num_members),
            topic: stringOrNull(field(channel, 'topic', 'value')),
          })),
        };
      },
    },
  };

  /** The link is a convenience: the message is posted whether or not Slack gives one. */
  async function permalink(
    channel: string | null,
    ts: string | null,
    context: ToolExecutionContext,
  ): Promise<string | null> {
    if (!channel || !ts) return null;
    try {
      const found = await call(
        'chat.getPermalink',
        { method: 'GET', query: { channel, message_ts: ts } },
        context,
      );
      return stringOrNull(found.permalink);
    } catch (error) {
      if (error instanceof ToolExecutionError) return null;
      throw error;
    }
  }
}
