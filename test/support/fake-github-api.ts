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
  return {
    status: 404,
    body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
  };
}
