import { Response } from 'supertest';
import { bearer, startApp, TestApp, tokenFor } from './support/test-app';

/** The costliest schedule that fires (see event-loop.alone-spec.ts): each occurrence walks years. */
const LEAP_DAY = {
  frequency: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0',
  time_zone: 'Pacific/Chatham',
  count: 500,
};
const FLOOD = 50;

describe("The scheduler thread's queue, shared by organizations (e2e)", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
    // The thread starts on first use; the flood should meet a running thread.
    await t.http().get('/v1/scheduler/preview?frequency=daily').set(bearer(tokenFor())).expect(200);
  });
  afterAll(() => t.close());

  const preview = (auth: Record<string, string>) =>
    t.http().get('/v1/scheduler/preview').query(LEAP_DAY).set(auth);

  it("refuses one organization's flood beyond its share, and still answers another's request in its turn", async () => {
    const flooder = bearer(tokenFor());
    const answered: number[] = [];
    let firstBusy: () => void = () => undefined;
    const busySeen = new Promise<void>((resolve) => (firstBusy = resolve));
    const flood = Array.from({ length: FLOOD }, () =>
      preview(flooder).then((res: Response) => {
        answered.push(res.status);
        if (res.status === 503) firstBusy();
        return res;
      }),
    );
    // Once the flood is refused, its share of the queue is full: the other organization asks now.
    await Promise.race([busySeen, Promise.all(flood)]);
    const other = await preview(bearer(tokenFor()));
    const floodServedBefore = answered.filter((status) => status === 200).length;

    expect(other.status).toBe(200);
    expect(other.body.data.occurrences).toHaveLength(LEAP_DAY.count);
    // Served in turn: after the flood's task that was running and at most one more of its queue,
    // not behind the 16 it has queued.
    expect(floodServedBefore).toBeLessThanOrEqual(3);

    const floodAnswers = await Promise.all(flood);
    const statuses = floodAnswers.map((res) => res.status);
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    const busy = floodAnswers.filter((res) => res.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
    for (const res of busy) {
      expect(res.body).toMatchObject({ code: 'busy' });
      expect(res.headers['retry-after']).toBe('1');
    }
    const metrics = await t.http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /agentline_worker_tasks_refused_total\{pool="scheduler",reason="organization_full"\} [1-9]/,
    );
  }, 120_000);
});
