import { randomUUID } from 'node:crypto';
import {
  CAPITAL_OF_PORTUGAL,
  ECB_NEWS,
  FakeSerpApi,
  NOTHING_FOUND_QUERY,
} from './support/fake-serpapi';
import { FakeSlackApi } from './support/fake-slack-api';
import { FakeGoogleApi, GOOGLE_ACCOUNT, INBOX, TEAM_CALENDAR } from './support/fake-google-api';
import { RecordedRequest } from './support/fake-http-api';
import { ManualClock } from './support/manual-clock';
import { expectEveryOutputChecked } from './support/output-schemas';
import { completeOAuth2Authorization } from './support/oauth2-authorization';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';
import { ExecutionResult, toolRequests } from './support/tool-requests';
import { oauth2Of, providerUrls } from './support/toolkits';

const NOW = Date.UTC(2025, 2, 14, 14, 30, 0); // Friday 2025-03-14 14:30:00 UTC
const SERPAPI_KEY = `serp-${randomUUID()}`;
const GOOGLE = 'https://www.googleapis.com/auth/';

/**
 * The Search (SerpApi), Slack and Google (Gmail, Calendar) toolkits against fakes that answer as
 * the real APIs do: what each executor sends (path, method, query, headers, body, the injected
 * credential), what it makes of the answer, and how a refusal reaches the model.
 */
describe('Tool providers (e2e)', () => {
  let t: TestApp;
  let serpapi: FakeSerpApi;
  let slack: FakeSlackApi;
  let google: FakeGoogleApi;
  const clock = new ManualClock(NOW);
  let org: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    serpapi = await FakeSerpApi.start([SERPAPI_KEY]);
    slack = await FakeSlackApi.start();
    google = await FakeGoogleApi.start();
    t = await startApp(
      {
        ...providerUrls({ Search: serpapi.url, Slack: slack.url, Google: google.url }),
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([serpapi.close(), slack.close(), google.close()]);
  });
  beforeEach(() => {
    clock.set(NOW);
    serpapi.reset();
    slack.reset();
    google.reset();
    org = newOrganization();
    auth = bearer(tokenFor({ org, sub: 'dana' }));
  });

  const tools = toolRequests(
    () => t,
    () => auth,
  );
  const { attach } = tools;

  /**
   * Attaches an OAuth2 tool and completes its authorization with the scopes its catalog entry asks
   * for; the provider's fake issues the token with `scopes` (by default the same).
   */
  const authorized = async (name: string, scopes?: readonly string[]) => {
    const tool = await attach(name);
    const { provider_id: provider, scopes: granted } = oauth2Of(name);
    const token = provider === 'slack' ? `xoxp-${randomUUID()}` : `ya29.${randomUUID()}`;
    (provider === 'slack' ? slack : google).issueToken(token, scopes ?? granted);
    await completeOAuth2Authorization(
      t,
      { id: tool.id, organizationId: org },
      { providerId: provider, accessToken: token, scopes: granted },
    );
    return { id: tool.id, token };
  };

  /** Executes and expects a 200; answers the whole body, so that nothing in it goes unchecked. */
  const run = async (toolId: string, input: Record<string, unknown>) =>
    (await tools.execute(toolId, input).expect(200)).body as { data: ExecutionResult };
  const executions = tools.executions;

  /** The credential appears in none of what the caller, the record or the log can show. */
  const expectNowhere = async (secret: string, toolId: string, ...answers: unknown[]) => {
    const texts = [
      ...answers.map((a) => JSON.stringify(a)),
      JSON.stringify(await executions(toolId)),
      t.logs(),
    ];
    for (const text of texts) expect(text).not.toContain(secret);
  };

  const only = (requests: RecordedRequest[]) => {
    expect(requests).toHaveLength(1);
    return requests[0];
  };

  describe('Search (SerpApi)', () => {
    const searchTool = (name: string, apiKey = SERPAPI_KEY) => attach(name, { api_key: apiKey });

    it('WebSearch asks Google through SerpApi with the api_key, and maps results and answer box', async () => {
      const tool = await searchTool('Search.WebSearch');
      const res = await run(tool.id, {
        query: 'capital of portugal',
        num_results: 3,
        country: 'PT',
        language: 'pt',
      });

      const request = only(serpapi.requests);
      expect(request).toMatchObject({ method: 'GET', path: '/search.json' });
      expect(request.query).toEqual({
        engine: 'google',
        q: 'capital of portugal',
        num: '3',
        gl: 'pt',
        hl: 'pt',
        safe: 'active',
        api_key: SERPAPI_KEY,
      });
      expect(res.data).toMatchObject({ status: 'succeeded' });
      expect(res.data.output).toEqual({
        value: {
          results: CAPITAL_OF_PORTUGAL.organic_results.slice(0, 3).map((result) => ({
            position: result.position,
            title: result.title,
            link: result.link,
            snippet: result.snippet,
          })),
          answer_box: {
            title: 'Portugal / Capital',
            answer: 'Lisbon',
            snippet: null,
            link: 'https://en.wikipedia.org/wiki/Lisbon',
          },
        },
      });
      const list = await executions(tool.id);
      expect(list.items[0]).toMatchObject({ status: 'succeeded', output: res.data.output });
      await expectNowhere(SERPAPI_KEY, tool.id, res);
    });

    it.each([
      [
        'bing',
        { cc: 'pt', mkt: 'en-PT', safeSearch: 'Off', count: '4' },
        { country: 'pt', language: 'en', safe_search: false, num_results: 4 },
      ],
      ['duckduckgo', { kl: 'pt-en', safe: '1' }, { country: 'PT', num_results: 4 }],
    ])('WebSearch on %s sends that engine’s parameters', async (engine, expected, input) => {
      const tool = await searchTool('Search.WebSearch');
      const res = await run(tool.id, { query: 'pastel de nata', engine, ...input });
      expect(only(serpapi.requests).query).toEqual({
        engine,
        q: 'pastel de nata',
        api_key: SERPAPI_KEY,
        ...expected,
      });
      // DuckDuckGo has no result count: the executor keeps the first num_results itself.
      const value = res.data.output.value as { results: { position: number }[] };
      expect(value.results.map((result) => result.position)).toEqual([1, 2, 3, 4]);
    });

    it('WebSearch reports "no results" as an empty list, not an error', async () => {
      const tool = await searchTool('Search.WebSearch');
      const res = await run(tool.id, { query: NOTHING_FOUND_QUERY });
      expect(res.data).toMatchObject({ status: 'succeeded', output: { value: { results: [] } } });
    });

    it('NewsSearch is Google with tbm=nws and the time range as tbs', async () => {
      const tool = await searchTool('Search.NewsSearch');
      const res = await run(tool.id, {
        query: 'ECB interest rates',
        time_range: 'day',
        num_results: 2,
      });
      expect(only(serpapi.requests)).toMatchObject({
        method: 'GET',
        path: '/search.json',
        query: {
          engine: 'google',
          tbm: 'nws',
          q: 'ECB interest rates',
          num: '2',
          tbs: 'qdr:d',
          api_key: SERPAPI_KEY,
        },
      });
      expect(res.data.output).toEqual({
        value: {
          articles: ECB_NEWS.slice(0, 2).map(({ title, source, date, link, snippet }) => ({
            title,
            source,
            date,
            link,
            snippet,
          })),
        },
      });

      serpapi.reset();
      await run(tool.id, { query: 'ECB interest rates' });
      expect(only(serpapi.requests).query).toMatchObject({ tbs: 'qdr:w', num: '5' });
    });

    it('an invalid key is a failed execution with SerpApi’s message, and the key shows nowhere', async () => {
      const wrongKey = `serp-revoked-${randomUUID()}`;
      const tool = await searchTool('Search.WebSearch', wrongKey);
      const res = await run(tool.id, { query: 'capital of portugal' });
      expect(only(serpapi.requests).query.api_key).toBe(wrongKey);
      const message =
        'SerpApi answered HTTP 401: Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key';
      expect(res.data).toMatchObject({ status: 'failed', output: { error: message } });
      const list = await executions(tool.id);
      expect(list.items[0]).toMatchObject({ status: 'failed', error: message });
      await expectNowhere(wrongKey, tool.id, res);
    });
  });

  describe('Slack', () => {
    it('SendMessage posts JSON to chat.postMessage with the bearer token, then fetches the permalink', async () => {
      const tool = await authorized('Slack.SendMessage');
      const res = await run(tool.id, { channel: '#general', text: 'Deploy finished :rocket:' });

      expect(slack.requests).toHaveLength(2);
      const [post, permalink] = slack.requests;
      expect(post).toMatchObject({
        method: 'POST',
        path: '/api/chat.postMessage',
        body: { channel: '#general', text: 'Deploy finished :rocket:' },
      });
      expect(post.headers.authorization).toBe(`Bearer ${tool.token}`);
      expect(post.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Object.keys(post.body as object).sort()).toEqual(['channel', 'text']);
      const ts = slack.posted[0].ts;
      expect(permalink).toMatchObject({
        method: 'GET',
        path: '/api/chat.getPermalink',
        query: { channel: 'C08GENERAL1', message_ts: ts },
      });
      expect(permalink.headers.authorization).toBe(`Bearer ${tool.token}`);
      expect(res.data).toMatchObject({ status: 'succeeded' });
      expect(res.data.output).toEqual({
        value: {
          channel: 'C08GENERAL1',
          ts,
          permalink: `https://acme.slack.com/archives/C08GENERAL1/p${ts.replace('.', '')}`,
        },
      });
      await expectNowhere(tool.token, tool.id, res);
    });

    it('SendMessage replies in a thread with Block Kit blocks', async () => {
      const tool = await authorized('Slack.SendMessage');
      const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*Deploy* finished' } }];
      const res = await run(tool.id, {
        channel: 'C08RANDOM01',
        text: 'Deploy finished',
        thread_ts: '1741960000.000100',
        blocks: { blocks },
      });
      expect(slack.posted).toEqual([
        {
          channel: 'C08RANDOM01',
          ts: expect.any(String),
          text: 'Deploy finished',
          thread_ts: '1741960000.000100',
          blocks,
        },
      ]);
      expect((res.data.output.value as { permalink: string }).permalink).toBe(
        `https://acme.slack.com/archives/C08RANDOM01/p${slack.posted[0].ts.replace('.', '')}?thread_ts=1741960000.000100&cid=C08RANDOM01`,
      );
    });

    it('ListChannels reads conversations.list with query arguments', async () => {
      const tool = await authorized('Slack.ListChannels');
      const res = await run(tool.id, {});
      const request = only(slack.requests);
      expect(request).toMatchObject({
        method: 'GET',
        path: '/api/conversations.list',
        query: { types: 'public_channel', exclude_archived: 'true', limit: '100' },
      });
      expect(request.headers.authorization).toBe(`Bearer ${tool.token}`);
      expect(res.data.output).toEqual({
        value: {
          channels: [
            {
              id: 'C08GENERAL1',
              name: 'general',
              is_private: false,
              num_members: 42,
              topic: 'Company-wide announcements',
            },
            { id: 'C08RANDOM01', name: 'random', is_private: false, num_members: 40, topic: '' },
          ],
        },
      });

      slack.requests.length = 0;
      const more = await run(tool.id, {
        types: ['public_channel', 'private_channel'],
        exclude_archived: false,
        limit: 3,
      });
      expect(only(slack.requests).query).toEqual({
        types: 'public_channel,private_channel',
        exclude_archived: 'false',
        limit: '3',
      });
      const channels = (
        more.data.output.value as { channels: { name: string; is_private: boolean }[] }
      ).channels;
      expect(channels.map((c) => [c.name, c.is_private])).toEqual([
        ['general', false],
        ['random', false],
        ['leadership', true],
      ]);
    });

    it('an {ok: false} answer is a failed execution naming Slack’s error, and the token shows nowhere', async () => {
      const tool = await authorized('Slack.SendMessage');
      const res = await run(tool.id, { channel: '#no-such-channel', text: 'Hello?' });
      expect(only(slack.requests).path).toBe('/api/chat.postMessage');
      const message = 'Slack refused chat.postMessage: channel_not_found';
      expect(res.data).toMatchObject({ status: 'failed', output: { error: message } });
      const list = await executions(tool.id);
      expect(list.items[0]).toMatchObject({ status: 'failed', error: message });
      expect(slack.posted).toHaveLength(0);
      await expectNowhere(tool.token, tool.id, res);
    });
  });

  describe('Google: Gmail', () => {
    it('SendEmail sends a base64url RFC 5322 message to messages.send', async () => {
      const tool = await authorized('Google.SendEmail');
      const res = await run(tool.id, {
        recipient: 'ana@example.com',
        subject: 'Reunião de orçamento – Q1',
        body: 'Olá Ana,\n\nSegue o resumo do orçamento. Até segunda!\n\nDana',
        cc: ['bob@example.com'],
        bcc: ['audit@example.com'],
      });

      const request = only(google.requests);
      expect(request).toMatchObject({ method: 'POST', path: '/gmail/v1/users/me/messages/send' });
      expect(request.headers.authorization).toBe(`Bearer ${tool.token}`);
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      const raw = (request.body as { raw: string }).raw;
      expect(Object.keys(request.body as object)).toEqual(['raw']);
      expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);

      const [sent] = google.sent;
      expect(sent.headers).toMatchObject({
        to: 'ana@example.com',
        cc: 'bob@example.com',
        bcc: 'audit@example.com',
        subject: 'Reunião de orçamento – Q1',
        'mime-version': '1.0',
        'content-type': 'text/plain; charset="UTF-8"',
      });
      expect(sent.body).toBe('Olá Ana,\n\nSegue o resumo do orçamento. Até segunda!\n\nDana');
      // RFC 5322: every line of the message ends in CRLF.
      expect(sent.source).not.toMatch(/[^\r]\n/);
      expect(res.data).toMatchObject({ status: 'succeeded' });
      expect(res.data.output).toEqual({
        value: { id: sent.id, thread_id: sent.id, label_ids: ['SENT'] },
      });
      await expectNowhere(tool.token, tool.id, res);
    });

    it('SendEmail keeps long headers within RFC 5322 and RFC 2047 limits', async () => {
      const tool = await authorized('Google.SendEmail');
      const subject =
        'Orçamento do segundo trimestre: revisão das previsões, contratações e próximos passos da equipa';
      const cc = Array.from({ length: 6 }, (_, i) => `colleague.number.${i + 1}@example.com`);
      const res = await run(tool.id, { recipient: 'ana@example.com', subject, body: 'Olá', cc });
      expect(res.data.status).toBe('succeeded');

      const [sent] = google.sent;
      expect(sent.headers.subject).toBe(subject);
      expect(sent.headers.cc).toBe(cc.join(', '));
      const head = sent.source.slice(0, sent.source.indexOf('\r\n\r\n'));
      // A line SHOULD stay within 78 characters (RFC 5322 §2.1.1), an encoded-word MUST within 75.
      for (const line of head.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
      for (const word of head.match(/=\?[^?]+\?[BQ]\?[^?]*\?=/g) ?? []) {
        expect(word.length).toBeLessThanOrEqual(75);
      }
    });

    it('SendEmail sends HTML when asked, and refuses an address Gmail could not use', async () => {
      const tool = await authorized('Google.SendEmail');
      await run(tool.id, {
        recipient: 'ana@example.com',
        subject: 'Report',
        body: '<p>See <b>attached</b></p>',
        is_html: true,
      });
      expect(google.sent[0].headers['content-type']).toBe('text/html; charset="UTF-8"');
      expect(google.sent[0].body).toBe('<p>See <b>attached</b></p>');

      const refused = await run(tool.id, {
        recipient: 'ana@example.com\r\nBcc: everyone@example.com',
        subject: 'Hi',
        body: 'Hi',
      });
      expect(refused.data.status).toBe('failed');
      expect(refused.data.output.error).toMatch(/^recipient ".*" is not an email address\.$/s);
      expect(google.requests).toHaveLength(1);
    });

    it('ListEmails searches with q, then reads each message’s headers', async () => {
      const tool = await authorized('Google.ListEmails');
      const res = await run(tool.id, {
        query: 'from:ana@example.com',
        unread_only: true,
        max_results: 5,
      });

      expect(google.requests).toHaveLength(3);
      const [list, ...gets] = google.requests;
      expect(list).toMatchObject({
        method: 'GET',
        path: '/gmail/v1/users/me/messages',
        query: { q: 'from:ana@example.com is:unread', maxResults: '5' },
      });
      for (const request of google.requests) {
        expect(request.headers.authorization).toBe(`Bearer ${tool.token}`);
      }
      const ana = [INBOX[0], INBOX[2]];
      expect(gets.map((get) => get.path).sort()).toEqual(
        ana.map((message) => `/gmail/v1/users/me/messages/${message.id}`).sort(),
      );
      for (const get of gets) {
        expect(get.queryValues).toEqual({
          format: ['metadata'],
          metadataHeaders: ['From', 'To', 'Subject', 'Date'],
        });
      }
      expect(res.data.output).toEqual({
        value: {
          emails: [
            {
              id: '195921a3c4d5e6f7',
              thread_id: '195921a3c4d5e6f7',
              from: 'Ana Silva <ana@example.com>',
              to: 'Dana <dana@example.com>',
              subject: 'Q1 budget review',
              date: 'Fri, 14 Mar 2025 09:12:00 +0000',
              snippet: INBOX[0].snippet,
            },
            {
              id: '1958a9c8b7d6e5f4',
              thread_id: '1958a9c8b7d6e5f4',
              from: 'Ana Silva <ana@example.com>',
              to: 'dana@example.com',
              subject: 'Lunch on Friday?',
              date: 'Wed, 12 Mar 2025 12:05:00 +0000',
              snippet: INBOX[2].snippet,
            },
          ],
        },
      });
    });

    it('ListEmails with include_body reads full messages and decodes their text', async () => {
      const tool = await authorized('Google.ListEmails');
      const res = await run(tool.id, { include_body: true, max_results: 2 });
      expect(google.requests[0].query).toEqual({ maxResults: '2' });
      for (const get of google.requests.slice(1))
        expect(get.queryValues).toEqual({ format: ['full'] });
      const value = res.data.output.value as {
        emails: { subject: string; body: string | null }[];
        next_page_token?: string;
      };
      expect(value.emails.map(({ subject, body }) => ({ subject, body }))).toEqual([
        // multipart/alternative: the text/plain part.
        { subject: 'Q1 budget review', body: INBOX[0].text },
        // HTML only: the text, tags and styles dropped.
        { subject: 'Invoice #1042', body: 'Your invoice #1042 for March is ready.' },
      ]);
      expect(value.next_page_token).toBe('2');
    });
  });

  describe('Google: Calendar', () => {
    it('CreateCalendarEvent inserts the event in the given zone and invites the attendees', async () => {
      const tool = await authorized('Google.CreateCalendarEvent');
      const res = await run(tool.id, {
        summary: 'Budget follow-up',
        start_datetime: '2025-03-20T10:00:00',
        end_datetime: '2025-03-20T10:30:00',
        time_zone: 'Europe/Madrid',
        description: 'Decide on the Q2 headcount.',
        location: 'Room 2',
        attendee_emails: [' ana@example.com ', 'bob@example.com'],
      });

      const request = only(google.requests);
      expect(request).toMatchObject({
        method: 'POST',
        path: '/calendar/v3/calendars/primary/events',
        query: { sendUpdates: 'all' },
      });
      expect(request.headers.authorization).toBe(`Bearer ${tool.token}`);
      expect(request.body).toEqual({
        summary: 'Budget follow-up',
        description: 'Decide on the Q2 headcount.',
        location: 'Room 2',
        start: { dateTime: '2025-03-20T10:00:00', timeZone: 'Europe/Madrid' },
        end: { dateTime: '2025-03-20T10:30:00', timeZone: 'Europe/Madrid' },
        attendees: [{ email: 'ana@example.com' }, { email: 'bob@example.com' }],
      });
      const [created] = google.createdEvents;
      expect(res.data).toMatchObject({ status: 'succeeded' });
      expect(res.data.output).toEqual({
        value: {
          id: created.id,
          summary: 'Budget follow-up',
          start: '2025-03-20T10:00:00+01:00',
          end: '2025-03-20T10:30:00+01:00',
          location: 'Room 2',
          attendees: ['ana@example.com', 'bob@example.com'],
          html_link: expect.stringMatching(/^https:\/\/www\.google\.com\/calendar\/event\?eid=/),
        },
      });
      await expectNowhere(tool.token, tool.id, res);
    });

    it('CreateCalendarEvent without offsets or time_zone uses the calendar’s zone, with the tool’s own scope', async () => {
      // The grant holds calendar.events only, as the catalog asks: enough to read the calendar's
      // zone from its events, not to read the calendar's metadata (calendars.get).
      const tool = await authorized('Google.CreateCalendarEvent');
      const res = await run(tool.id, {
        summary: 'Team retro',
        start_datetime: '2025-03-20T16:00',
        end_datetime: '2025-03-20T17:00',
        calendar_id: TEAM_CALENDAR.id,
        send_updates: 'none',
      });
      expect(res.data).toMatchObject({
        status: 'succeeded',
        output: {
          value: {
            summary: 'Team retro',
            // New York is on daylight time (EDT) since 2025-03-09.
            start: '2025-03-20T16:00:00-04:00',
            end: '2025-03-20T17:00:00-04:00',
            attendees: [],
          },
        },
      });
      expect(google.requests).toHaveLength(2);
      const [zone, insert] = google.requests;
      expect(zone).toMatchObject({
        method: 'GET',
        path: '/calendar/v3/calendars/team%40group.calendar.google.com/events',
        query: { maxResults: '1', fields: 'timeZone' },
      });
      expect(zone.headers.authorization).toBe(`Bearer ${tool.token}`);
      expect(insert).toMatchObject({
        method: 'POST',
        path: '/calendar/v3/calendars/team%40group.calendar.google.com/events',
        query: { sendUpdates: 'none' },
        body: {
          start: { dateTime: '2025-03-20T16:00', timeZone: TEAM_CALENDAR.timeZone },
          end: { dateTime: '2025-03-20T17:00', timeZone: TEAM_CALENDAR.timeZone },
        },
      });
    });

    it('CreateCalendarEvent with offsets needs no zone', async () => {
      const tool = await authorized('Google.CreateCalendarEvent');
      const res = await run(tool.id, {
        summary: 'Call',
        start_datetime: '2025-03-20T10:00:00+01:00',
        end_datetime: '2025-03-20T10:15:00+01:00',
      });
      expect(only(google.requests).body).toEqual({
        summary: 'Call',
        start: { dateTime: '2025-03-20T10:00:00+01:00' },
        end: { dateTime: '2025-03-20T10:15:00+01:00' },
      });
      // Without a zone of its own the event is shown in the calendar's (Lisbon: UTC in March).
      expect(res.data.output.value).toMatchObject({
        start: '2025-03-20T09:00:00Z',
        end: '2025-03-20T09:15:00Z',
      });
    });

    it('ListCalendarEvents lists the coming week from now, single events by start time', async () => {
      const tool = await authorized('Google.ListCalendarEvents');
      const res = await run(tool.id, {});
      const request = only(google.requests);
      expect(request).toMatchObject({
        method: 'GET',
        path: '/calendar/v3/calendars/primary/events',
      });
      expect(request.headers.authorization).toBe(`Bearer ${tool.token}`);
      expect(request.query).toEqual({
        timeMin: '2025-03-14T14:30:00.000Z',
        timeMax: '2025-03-21T14:30:00.000Z',
        singleEvents: 'true',
        orderBy: 'startTime',
        maxResults: '25',
      });
      expect(res.data.output).toEqual({
        value: {
          events: [
            {
              // Started before now, ends after: still listed.
              id: 'c2ongoing0314',
              summary: 'Hiring sync',
              start: '2025-03-14T14:00:00Z',
              end: '2025-03-14T15:00:00Z',
              location: null,
              attendees: [],
              html_link: expect.any(String),
            },
            {
              id: 'd3budget0314',
              summary: 'Q1 budget review',
              start: '2025-03-14T16:00:00Z',
              end: '2025-03-14T17:00:00Z',
              location: 'Room 2',
              attendees: [GOOGLE_ACCOUNT.email, 'ana@example.com'],
              html_link: expect.any(String),
            },
            {
              id: 'e4offsite0319',
              summary: 'Company offsite',
              start: '2025-03-19',
              end: '2025-03-20',
              location: null,
              attendees: [],
              html_link: expect.any(String),
            },
          ],
        },
      });
    });

    it('ListCalendarEvents takes its bounds and count, and refuses an empty range', async () => {
      const tool = await authorized('Google.ListCalendarEvents');
      const res = await run(tool.id, {
        min_end_datetime: '2025-03-13T00:00:00',
        max_start_datetime: '2025-03-26T00:00:00+01:00',
        max_results: 4,
        calendar_id: 'primary',
      });
      expect(only(google.requests).query).toMatchObject({
        timeMin: '2025-03-13T00:00:00.000Z',
        timeMax: '2025-03-25T23:00:00.000Z',
        maxResults: '4',
      });
      const events = (res.data.output.value as { events: { id: string }[] }).events;
      expect(events.map((event) => event.id)).toEqual([
        'b1past0313',
        'c2ongoing0314',
        'd3budget0314',
        'e4offsite0319',
      ]);

      const empty = await run(tool.id, {
        min_end_datetime: '2025-03-20T00:00:00Z',
        max_start_datetime: '2025-03-19T00:00:00Z',
      });
      expect(empty.data).toMatchObject({
        status: 'failed',
        output: { error: 'max_start_datetime must be after min_end_datetime.' },
      });
      expect(google.requests).toHaveLength(1);
    });

    it('a 403 from Google is a failed execution with Google’s message, and the token shows nowhere', async () => {
      // The grant says gmail.send, but Google no longer honours it for this token (access was
      // withdrawn in the Google account): Google answers 403 insufficient scopes.
      const tool = await authorized('Google.SendEmail', [`${GOOGLE}calendar.readonly`]);
      const res = await run(tool.id, { recipient: 'ana@example.com', subject: 'Hi', body: 'Hi' });
      expect(only(google.requests).path).toBe('/gmail/v1/users/me/messages/send');
      const message = 'Google answered HTTP 403: Request had insufficient authentication scopes.';
      expect(res.data).toMatchObject({ status: 'failed', output: { error: message } });
      const list = await executions(tool.id);
      expect(list.items[0]).toMatchObject({ status: 'failed', error: message });
      expect(google.sent).toHaveLength(0);
      await expectNowhere(tool.token, tool.id, res);
    });
  });

  // Declared last: it reads what the tests above ran (every execution goes through toolRequests).
  it("checked a succeeded output of each of this suite's tools against its MCP outputSchema", () =>
    expectEveryOutputChecked(t, auth, 'tool-providers'));
});
