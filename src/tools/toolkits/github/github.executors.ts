import { ToolExecutionContext, ToolExecutor } from '../../execution/tool-executor';
import { requireAccessToken } from '../provider-credentials';
import {
  field,
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
  optionalInteger,
  optionalString,
  optionalStrings,
} from '../tool-input.readers';

const PROVIDER = 'GitHub';
const API_VERSION = '2022-11-28';

/** Github.* over GitHub's REST API, as the authorized user (OAuth2 bearer token). */
export function githubExecutors(
  http: ProviderHttpClient,
  baseUrl: string,
): Record<string, ToolExecutor> {
  const call = async (
    request: Pick<ProviderRequest, 'method' | 'path' | 'query' | 'json'>,
    context: ToolExecutionContext,
  ): Promise<unknown> => {
    const token = requireAccessToken(context, PROVIDER);
    const response = await http.request(PROVIDER, {
      ...request,
      baseUrl,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': API_VERSION,
      },
      signal: context.signal,
      secrets: [token],
    });
    if (response.status >= 200 && response.status < 300) return response.body;
    throw providerError(PROVIDER, response.status, githubMessage(response.body), [token]);
  };
  // owner and repo are also held to GitHub's name rules by the catalog's patterns.
  const repository = (input: Parameters<ToolExecutor['execute']>[0]) => [
    'repos',
    nonBlankString(input, 'owner'),
    nonBlankString(input, 'repo'),
  ];

  return {
    'Github.CreateIssue': {
      async execute(input, context) {
        const issue = await call(
          {
            method: 'POST',
            path: [...repository(input), 'issues'],
            json: {
              title: nonBlankString(input, 'title'),
              body: optionalString(input, 'body'),
              labels: optionalStrings(input, 'labels'),
              assignees: optionalStrings(input, 'assignees'),
              milestone: optionalInteger(input, 'milestone'),
            },
          },
          context,
        );
        return {
          number: numberOrNull(field(issue, 'number')),
          html_url: stringOrNull(field(issue, 'html_url')),
          title: stringOrNull(field(issue, 'title')),
          state: stringOrNull(field(issue, 'state')),
          created_at: stringOrNull(field(issue, 'created_at')),
        };
      },
    },
    'Github.ListPullRequests': {
      async execute(input, context) {
        const pulls = await call(
          {
            method: 'GET',
            path: [...repository(input), 'pulls'],
            query: {
              state: optionalString(input, 'state') ?? 'open',
              base: optionalString(input, 'base'),
              per_page: integerInRange(input, 'per_page', { min: 1, max: 100, fallback: 30 }),
              sort: 'updated',
              direction: 'desc',
            },
          },
          context,
        );
        return {
          pull_requests: records(pulls).map((pull) => ({
            number: numberOrNull(pull.number),
            title: stringOrNull(pull.title),
            state: stringOrNull(pull.state),
            user: stringOrNull(field(pull, 'user', 'login')),
            head: stringOrNull(field(pull, 'head', 'ref')),
            base: stringOrNull(field(pull, 'base', 'ref')),
            draft: pull.draft === true,
            html_url: stringOrNull(pull.html_url),
            updated_at: stringOrNull(pull.updated_at),
          })),
        };
      },
    },
    'Github.SearchRepositories': {
      async execute(input, context) {
        const found = await call(
          {
            method: 'GET',
            path: ['search', 'repositories'],
            query: {
              q: nonBlankString(input, 'query'),
              sort: optionalString(input, 'sort'),
              per_page: integerInRange(input, 'per_page', { min: 1, max: 100, fallback: 10 }),
            },
          },
          context,
        );
        return {
          total_count: numberOrNull(field(found, 'total_count')),
          repositories: records(field(found, 'items')).map((repo) => ({
            full_name: stringOrNull(repo.full_name),
            description: stringOrNull(repo.description),
            html_url: stringOrNull(repo.html_url),
            stargazers_count: numberOrNull(repo.stargazers_count),
            language: stringOrNull(repo.language),
          })),
        };
      },
    },
  };
}

/** GitHub errors are `{message, errors?: [{message} | {resource, field, code}]}`. */
function githubMessage(body: unknown): string | undefined {
  const message = stringOrNull(field(body, 'message'));
  const details = records(field(body, 'errors'))
    .map(
      (error) =>
        stringOrNull(error.message) ??
        [error.resource, error.field, error.code]
          .filter((part) => typeof part === 'string')
          .join(' '),
    )
    .filter(Boolean);
  if (!message) return undefined;
  return details.length > 0 ? `${message} (${details.join('; ')})` : message;
}
