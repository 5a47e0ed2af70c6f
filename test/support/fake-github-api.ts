import { Server } from 'node:http';
import { FakeHttpApi, FakeHttpReply, RecordedRequest } from './fake-http-api';

/**
 * GitHub's REST API as far as the Github toolkit uses it: issue creation, pull requests and
 * repository search, bearer tokens, GitHub's `{message, documentation_url}` errors.
 */
export class FakeGithubApi extends FakeHttpApi {
  static start(validTokens: readonly string[]): Promise<FakeGithubApi> {
    return FakeHttpApi.listen(
      (server: Server, url: string) =>
        new FakeGithubApi(server, url, (request) => answer(request, validTokens)),
    );
  }
}

function answer(request: RecordedRequest, validTokens: readonly string[]): FakeHttpReply {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!token || !validTokens.includes(token)) {
    return {
      status: 401,
      body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
    };
  }
  const issues = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(request.path);
  if (request.method === 'POST' && issues) {
    const body = request.body as { title?: unknown };
    if (typeof body.title !== 'string' || body.title === '') {
      return {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }],
        },
      };
    }
    return {
      status: 201,
      body: {
        id: 1,
        number: 42,
        html_url: `https://github.com/${issues[1]}/${issues[2]}/issues/42`,
        title: body.title,
        state: 'open',
        created_at: '2025-03-14T14:30:00Z',
        user: { login: 'octocat' },
      },
    };
  }
  const pulls = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(request.path);
  if (request.method === 'GET' && pulls) {
    const state = request.query.state ?? 'open';
    const listed = PULL_REQUESTS.filter((pull) => state === 'all' || pull.state === state);
    return {
      status: 200,
      body: listed.slice(0, Number(request.query.per_page ?? 30)).map((pull) => ({
        ...pull,
        url: `https://api.github.com/repos/${pulls[1]}/${pulls[2]}/pulls/${pull.number}`,
        html_url: `https://github.com/${pulls[1]}/${pulls[2]}/pull/${pull.number}`,
      })),
    };
  }
  if (request.method === 'GET' && request.path === '/search/repositories') {
    const items = REPOSITORIES.slice(0, Number(request.query.per_page ?? 30));
    return { status: 200, body: { total_count: 2, incomplete_results: false, items } };
  }
  return {
    status: 404,
    body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
  };
}

/** Pull requests as GitHub lists them (fields the executor does not read trimmed away). */
export const PULL_REQUESTS = [
  {
    id: 2311,
    number: 7,
    state: 'open',
    title: 'Retry sends on 429',
    user: { login: 'ana', id: 11, type: 'User' },
    head: { ref: 'retry-429', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e' },
    base: { ref: 'main', sha: '9fceb02d0ae598e95dc970b74767f19372d61af8' },
    draft: false,
    created_at: '2025-03-12T09:00:00Z',
    updated_at: '2025-03-14T10:02:00Z',
  },
  {
    id: 2312,
    number: 8,
    state: 'open',
    title: 'WIP: template previews',
    user: { login: 'bob', id: 12, type: 'User' },
    head: { ref: 'previews', sha: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d' },
    base: { ref: 'main', sha: '9fceb02d0ae598e95dc970b74767f19372d61af8' },
    draft: true,
    created_at: '2025-03-13T16:40:00Z',
    updated_at: '2025-03-13T17:15:00Z',
  },
  {
    id: 2290,
    number: 5,
    state: 'closed',
    title: 'Drop Node 18',
    user: { login: 'ana', id: 11, type: 'User' },
    head: { ref: 'node-20', sha: '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c' },
    base: { ref: 'main', sha: '9fceb02d0ae598e95dc970b74767f19372d61af8' },
    draft: false,
    created_at: '2025-02-01T08:00:00Z',
    updated_at: '2025-02-02T08:00:00Z',
  },
];

/** Search results as GitHub answers them; a repository may have no description nor language. */
export const REPOSITORIES = [
  {
    id: 501,
    full_name: 'octo/agentline',
    description: 'Tools and channels for AI agents',
    html_url: 'https://github.com/octo/agentline',
    stargazers_count: 1280,
    forks_count: 64,
    language: 'TypeScript',
    private: false,
  },
  {
    id: 502,
    full_name: 'octo/agentline-docs',
    description: null,
    html_url: 'https://github.com/octo/agentline-docs',
    stargazers_count: 3,
    forks_count: 0,
    language: null,
    private: false,
  },
];
