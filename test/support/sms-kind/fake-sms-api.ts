import { Server } from 'node:http';
import { FakeHttpApi, FakeHttpReply, RecordedRequest } from '../fake-http-api';

/** One SMS the provider accepted. */
export interface SentSms {
  id: string;
  from: string;
  to: string;
  text: string;
  token: string;
}

/** The SMS provider of the test-only kind: `POST /messages` with a bearer token, `{id}` back. */
export class FakeSmsApi extends FakeHttpApi {
  private constructor(
    server: Server,
    url: string,
    readonly sent: SentSms[] = [],
  ) {
    super(server, url, (request) => answer(request, sent));
  }

  static start(): Promise<FakeSmsApi> {
    return FakeHttpApi.listen((server: Server, url: string) => new FakeSmsApi(server, url));
  }
}

function answer(request: RecordedRequest, sent: SentSms[]): FakeHttpReply {
  if (request.method !== 'POST' || request.path !== '/messages') return { status: 404 };
  const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
  if (!token || token === 'revoked') return { status: 401, body: { error: 'bad token' } };
  const body = request.body as { from?: string; to?: string; text?: string };
  if (!body.from || !body.to || !body.text) return { status: 400, body: { error: 'bad request' } };
  const id = `sms-out-${sent.length + 1}`;
  sent.push({ id, from: body.from, to: body.to, text: body.text, token });
  return { status: 200, body: { id } };
}
