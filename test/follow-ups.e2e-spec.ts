import { randomUUID } from 'node:crypto';
import { aFollowUp } from './support/factories';
import { givenMessangerChannel, givenWhatsappChannel } from './support/given';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const MINUTE = 60_000;

/** Every delivery status, at 0: a follow-up that has sent nothing yet. */
const NO_DELIVERIES = {
  pending: 0,
  sending: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  cancelled: 0,
  skipped: 0,
};
describe('Follow-ups (e2e)', () => {
  let t: TestApp;
  let org: string;
  let auth: Record<string, string>;
  let channelId: string;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => t.close());
  beforeEach(async () => {
    org = newOrganization();
    auth = bearer(tokenFor({ org, sub: 'carol' }));
    channelId = (await givenWhatsappChannel(t, auth)).id;
  });

  const create = (body: object) =>
    t.http().post('/v1/scheduler/follow-up/whatsapp').set(auth).send(body);

  describe('POST /v1/scheduler/follow-up/whatsapp', () => {
    it('creates a follow-up and answers it bare, with next_run_at', async () => {
      const before = Date.now();
      const res = await create(
        aFollowUp(channelId, {
          client_phone_numbers: ['+34 612 345 678', '14155552671', '+34612345678'],
          description: 'Premium clients',
          time_zone: 'Europe/Madrid',
        }),
      ).expect(201);
      expect(res.body).not.toHaveProperty('data');
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        agent_id: 'agent-1',
        channel_id: channelId,
        channel_type: 'Whatsapp',
        client_phone_numbers: ['+34612345678', '+14155552671'],
        frequency: 'daily',
        prompt: 'Ask {{title}} whether everything went well.',
        title: 'Delivery check-in',
        description: 'Premium clients',
        time_zone: 'Europe/Madrid',
        template: null,
        status: 'active',
        next_run_at: expect.any(Number),
        last_run_at: null,
        organization_id: org,
        created_by: 'carol',
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
        deliveries: {
          latest_occurrence_at: null,
          latest: NO_DELIVERIES,
          total: NO_DELIVERIES,
        },
      });
      // daily: the same wall-clock time tomorrow (23 to 25 hours away, by DST).
      const delta = res.body.next_run_at - res.body.created_at;
      expect(delta).toBeGreaterThanOrEqual(23 * 60 * MINUTE);
      expect(delta).toBeLessThanOrEqual(25 * 60 * MINUTE);
      expect(res.body.created_at).toBeGreaterThanOrEqual(before - 1000);
    });

    it('defaults time_zone to UTC and description to null', async () => {
      const res = await create(aFollowUp(channelId)).expect(201);
      expect(res.body.time_zone).toBe('UTC');
      expect(res.body.description).toBeNull();
    });

    it('schedules once at creation', async () => {
      const res = await create(aFollowUp(channelId, { frequency: 'once' })).expect(201);
      expect(res.body.next_run_at).toBe(res.body.created_at);
    });

    it.each([
      ['a cron expression', '0 9 * * 1-5'],
      ['an RRULE', 'RRULE:FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=10;BYMINUTE=0'],
      ['an ISO 8601 duration', 'PT6H'],
      ['a preset in capitals', 'WEEKLY'],
    ])('accepts %s, with a next run after creation', async (_name, frequency) => {
      const res = await create(
        aFollowUp(channelId, { frequency, time_zone: 'America/New_York' }),
      ).expect(201);
      expect(res.body.next_run_at).toBeGreaterThan(res.body.created_at);
    });

    it('next_run_at agrees with the preview of the same frequency', async () => {
      const res = await create(
        aFollowUp(channelId, { frequency: '30 8 * * *', time_zone: 'Asia/Kolkata' }),
      ).expect(201);
      const preview = await t
        .http()
        .get('/v1/scheduler/preview')
        .query({
          frequency: '30 8 * * *',
          time_zone: 'Asia/Kolkata',
          from: res.body.created_at,
          count: 1,
        })
        .set(auth)
        .expect(200);
      expect(preview.body.data.occurrences).toEqual([res.body.next_run_at]);
    });

    it('names each bad phone number by index', async () => {
      const res = await create(
        aFollowUp(channelId, { client_phone_numbers: ['+34612345678', 'call me', '+1', 5] }),
      ).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((error: { field: string }) => error.field)).toEqual([
        'client_phone_numbers[1]',
        'client_phone_numbers[2]',
        'client_phone_numbers[3]',
      ]);
    });

    it.each([
      ['an empty phone list', { client_phone_numbers: [] }, 'client_phone_numbers'],
      [
        'a phone list that is a string',
        { client_phone_numbers: '+34612345678' },
        'client_phone_numbers',
      ],
      [
        'more than 10,000 numbers',
        {
          client_phone_numbers: Array.from(
            { length: 10_001 },
            (_, i) => `+3461${String(i).padStart(7, '0')}`,
          ),
        },
        'client_phone_numbers',
      ],
      ['a bad time zone', { time_zone: 'Mars/Olympus' }, 'time_zone'],
      ['an offset instead of a zone', { time_zone: '+02:00' }, 'time_zone'],
      ['a bad frequency', { frequency: 'every now and then' }, 'frequency'],
      ['a 6-field cron', { frequency: '0 0 9 * * *' }, 'frequency'],
      ['a frequency above once a minute', { frequency: 'PT30S' }, 'frequency'],
      ['a frequency that never fires', { frequency: '0 0 30 2 *' }, 'frequency'],
      ['a missing prompt', { prompt: undefined }, 'prompt'],
      ['a missing title', { title: undefined }, 'title'],
      ['a missing agent_id', { agent_id: undefined }, 'agent_id'],
      ['a missing channel_id', { channel_id: undefined }, 'channel_id'],
      ['a missing frequency', { frequency: undefined }, 'frequency'],
      ['an unknown field', { channel_type: 'Messanger' }, 'channel_type'],
    ])('answers 400 for %s', async (_name, override, field) => {
      const res = await create(aFollowUp(channelId, override)).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });

    it('answers 422 for a channel that does not exist', async () => {
      const res = await create(aFollowUp(randomUUID())).expect(422);
      expect(res.body).toMatchObject({ status: 422, code: 'channel_not_usable' });
    });

    it("answers 422 for another organization's channel", async () => {
      const foreign = await givenWhatsappChannel(t, bearer(tokenFor()));
      const res = await create(aFollowUp(foreign.id)).expect(422);
      expect(res.body.detail).toContain('No WhatsApp channel');
    });

    it('answers 422 for a channel of another agent', async () => {
      const res = await create(aFollowUp(channelId, { agent_id: 'agent-2' })).expect(422);
      expect(res.body.code).toBe('channel_not_usable');
    });

    it('answers 422 for a Messanger channel', async () => {
      const messanger = await givenMessangerChannel(t, auth);
      const res = await create(aFollowUp(messanger.id)).expect(422);
      expect(res.body.detail).toContain('Messanger');
    });
  });

  describe('GET /v1/scheduler/preview', () => {
    const preview = (query: Record<string, string | number>) =>
      t.http().get('/v1/scheduler/preview').query(query).set(auth);

    it('lists the next occurrences after from, wrapped in data', async () => {
      const from = Date.UTC(2026, 0, 5, 8, 0); // Monday 08:00 UTC
      const res = await preview({
        frequency: '0 9 * * 1-5',
        time_zone: 'UTC',
        from,
        count: 3,
      }).expect(200);
      expect(res.body).toEqual({
        data: {
          occurrences: [Date.UTC(2026, 0, 5, 9), Date.UTC(2026, 0, 6, 9), Date.UTC(2026, 0, 7, 9)],
        },
      });
    });

    it('evaluates in the time zone across a DST change', async () => {
      const from = Date.UTC(2026, 2, 27, 12); // Friday before Europe's spring change
      const res = await preview({
        frequency: 'daily',
        time_zone: 'Europe/Madrid',
        from,
        count: 3,
      }).expect(200);
      // Created 13:00 CET; daily stays at 13:00 wall-clock: CET, then CEST (one hour earlier in UTC).
      expect(res.body.data.occurrences).toEqual([
        Date.UTC(2026, 2, 28, 12),
        Date.UTC(2026, 2, 29, 11),
        Date.UTC(2026, 2, 30, 11),
      ]);
    });

    it('answers once with the creation instant', async () => {
      const from = Date.UTC(2026, 5, 1);
      const res = await preview({ frequency: 'once', from }).expect(200);
      expect(res.body.data.occurrences).toEqual([from]);
    });

    it('defaults to 10 occurrences and allows up to 500', async () => {
      expect(
        (await preview({ frequency: 'hourly' }).expect(200)).body.data.occurrences,
      ).toHaveLength(10);
      expect(
        (await preview({ frequency: 'hourly', count: 500 }).expect(200)).body.data.occurrences,
      ).toHaveLength(500);
    });

    it.each([
      [{ frequency: 'hourly', count: 501 }, 'count'],
      [{ frequency: 'hourly', count: 0 }, 'count'],
      [{ frequency: 'hourly', from: 'yesterday' }, 'from'],
      [{ frequency: 'nope' }, 'frequency'],
      [{ frequency: 'daily', time_zone: 'Nowhere/City' }, 'time_zone'],
      [{ time_zone: 'UTC' }, 'frequency'],
    ])('answers 400 for %j', async (query, field) => {
      const res = await preview(query).expect(400);
      expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });
  });
});
