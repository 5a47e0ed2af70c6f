import {
  isValidTimeZone,
  loadStoredSchedule,
  parseSchedule,
  Schedule,
  ScheduleError,
} from './schedule.parser';

/*
 * Expected instants are worked out by hand from each zone's UTC offsets:
 * Europe/Madrid CET +01 / CEST +02 (2026: 03-29 02:00->03:00, 10-25 03:00->02:00);
 * America/New_York EST -05 / EDT -04 (2026: 03-08 02:00->03:00, 11-01 02:00->01:00);
 * Australia/Sydney AEST +10 / AEDT +11 (2026: 04-05 03:00->02:00, 10-04 02:00->03:00);
 * Australia/Lord_Howe +10:30 / +11 (2026: 04-05 02:00->01:30, 10-04 02:00->02:30);
 * Asia/Kolkata +05:30 and Asia/Kathmandu +05:45 all year.
 */
const at = (iso: string) => Date.parse(iso);
const isoList = (instants: Array<number | null>) =>
  instants.map((instant) => (instant === null ? null : new Date(instant).toISOString()));
const z = (iso: string) => iso.replace(/Z$/, '.000Z');

function parse(frequency: string, timeZone: string, anchorIso: string): Schedule {
  return parseSchedule(frequency, timeZone, at(anchorIso));
}

/** The first `count` firings: firstRun, then nextAfter each one. */
function firings(schedule: Schedule, count: number): Array<string | null> {
  const result: Array<number | null> = [schedule.firstRun()];
  while (result.length < count) {
    const previous = result[result.length - 1];
    result.push(previous === null ? null : schedule.nextAfter(previous));
  }
  return isoList(result);
}

function errorOf(run: () => unknown): ScheduleError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScheduleError) return error;
    throw error;
  }
  throw new Error('expected a ScheduleError');
}

describe('parseSchedule', () => {
  describe('time_zone', () => {
    it('accepts canonical names and links', () => {
      for (const zone of ['UTC', 'Asia/Kolkata', 'Asia/Calcutta', 'America/Sao_Paulo']) {
        expect(isValidTimeZone(zone)).toBe(true);
        expect(parse('daily', zone, '2026-01-01T00:00:00Z').kind).toBe('preset');
      }
    });

    it.each(['', 'Mars/Olympus_Mons', '+02:00', 'UTC+2', 'garbage'])('rejects %j', (zone) => {
      const error = errorOf(() => parse('daily', zone, '2026-01-01T00:00:00Z'));
      expect(error.field).toBe('time_zone');
      expect(error.message).toContain('IANA time zone');
    });

    it('checks the zone even for once', () => {
      expect(errorOf(() => parse('once', 'Nowhere/City', '2026-01-01T00:00:00Z')).field).toBe(
        'time_zone',
      );
    });
  });

  describe('once', () => {
    const anchor = '2026-05-10T08:00:00Z';

    it('fires once, at creation', () => {
      const schedule = parse(' ONCE ', 'Europe/Madrid', anchor);
      expect(schedule.kind).toBe('once');
      expect(schedule.firstRun()).toBe(at(anchor));
      expect(schedule.nextAfter(at(anchor) - 1)).toBe(at(anchor));
      expect(schedule.nextAfter(at(anchor))).toBeNull();
      expect(schedule.occurrences(at(anchor), 10)).toEqual([at(anchor)]);
      expect(schedule.occurrences(at(anchor) - 60_000, 10)).toEqual([at(anchor)]);
      expect(schedule.occurrences(at(anchor) + 1, 10)).toEqual([]);
      expect(schedule.occurrences(at(anchor), 0)).toEqual([]);
    });
  });

  describe('presets', () => {
    it('hourly is exact elapsed hours, even through a repeated hour', () => {
      // Created 02:15 CEST on the fall-back day.
      const schedule = parse('hourly', 'Europe/Madrid', '2026-10-25T00:15:00Z');
      expect(schedule.kind).toBe('preset');
      expect(firings(schedule, 3)).toEqual([
        z('2026-10-25T01:15:00Z'),
        z('2026-10-25T02:15:00Z'),
        z('2026-10-25T03:15:00Z'),
      ]);
    });

    it('daily created at 02:30 the day before a gap fires at 03:30 on the gap day', () => {
      // 2026-03-28 02:30 CET; next day 02:30 does not exist -> 03:30 CEST; then 02:30 CEST.
      const schedule = parse('daily', 'Europe/Madrid', '2026-03-28T01:30:00Z');
      expect(firings(schedule, 3)).toEqual([
        z('2026-03-29T01:30:00Z'),
        z('2026-03-30T00:30:00Z'),
        z('2026-03-31T00:30:00Z'),
      ]);
    });

    it('daily keeps the wall-clock time across a fall change', () => {
      // 09:00 EDT -> 09:00 EST.
      const schedule = parse('Daily', 'America/New_York', '2026-10-31T13:00:00Z');
      expect(firings(schedule, 2)).toEqual([z('2026-11-01T14:00:00Z'), z('2026-11-02T14:00:00Z')]);
    });

    it('weekly keeps the wall-clock time across the southern-hemisphere DST end', () => {
      // Wed 2026-04-01 09:00 AEDT, then 09:00 AEST.
      const schedule = parse('WEEKLY', 'Australia/Sydney', '2026-03-31T22:00:00Z');
      expect(firings(schedule, 3)).toEqual([
        z('2026-04-07T23:00:00Z'),
        z('2026-04-14T23:00:00Z'),
        z('2026-04-21T23:00:00Z'),
      ]);
    });

    it('monthly from Jan 31 clamps to the month end without drifting', () => {
      const schedule = parse('monthly', 'UTC', '2026-01-31T10:00:00Z');
      expect(firings(schedule, 4)).toEqual([
        z('2026-02-28T10:00:00Z'),
        z('2026-03-31T10:00:00Z'),
        z('2026-04-30T10:00:00Z'),
        z('2026-05-31T10:00:00Z'),
      ]);
    });

    it('monthly uses Feb 29 in a leap year', () => {
      const schedule = parse('monthly', 'UTC', '2028-01-31T10:00:00Z');
      expect(firings(schedule, 2)).toEqual([z('2028-02-29T10:00:00Z'), z('2028-03-31T10:00:00Z')]);
    });

    it('monthly keeps the wall-clock time across DST', () => {
      // 10:00 CET on 03-15 -> 10:00 CEST on 04-15.
      const schedule = parse('monthly', 'Europe/Madrid', '2026-03-15T09:00:00Z');
      expect(schedule.firstRun()).toBe(at('2026-04-15T08:00:00Z'));
    });

    it('finds occurrences far from the anchor', () => {
      const daily = parse('daily', 'UTC', '2026-01-01T09:00:00Z');
      expect(daily.nextAfter(at('2030-06-15T10:00:00Z'))).toBe(at('2030-06-16T09:00:00Z'));
      const monthly = parse('monthly', 'UTC', '2026-01-31T10:00:00Z');
      expect(monthly.nextAfter(at('2036-02-15T00:00:00Z'))).toBe(at('2036-02-29T10:00:00Z'));
      expect(monthly.nextAfter(at('2036-02-29T10:00:00Z'))).toBe(at('2036-03-31T10:00:00Z'));
    });

    it('never fires at or before creation', () => {
      const schedule = parse('daily', 'UTC', '2026-01-01T09:00:00Z');
      expect(schedule.nextAfter(at('2025-01-01T00:00:00Z'))).toBe(at('2026-01-02T09:00:00Z'));
    });
  });

  describe('ISO 8601 durations', () => {
    it('P1D keeps the wall-clock time while PT24H is exact: they differ by an hour', () => {
      // 11:00 CET the day before the spring change.
      const anchor = '2026-03-28T10:00:00Z';
      expect(parse('P1D', 'Europe/Madrid', anchor).firstRun()).toBe(at('2026-03-29T09:00:00Z'));
      expect(parse('PT24H', 'Europe/Madrid', anchor).firstRun()).toBe(at('2026-03-29T10:00:00Z'));
    });

    it('P1D and PT24H also differ across the fall change', () => {
      // 12:00 CEST -> 12:00 CET.
      const anchor = '2026-10-24T10:00:00Z';
      expect(parse('P1D', 'Europe/Madrid', anchor).firstRun()).toBe(at('2026-10-25T11:00:00Z'));
      expect(parse('PT24H', 'Europe/Madrid', anchor).firstRun()).toBe(at('2026-10-25T10:00:00Z'));
    });

    it('repeats time parts exactly from the anchor', () => {
      const schedule = parse('PT90M', 'Asia/Kolkata', '2026-01-01T00:00:00Z');
      expect(schedule.kind).toBe('duration');
      expect(firings(schedule, 3)).toEqual([
        z('2026-01-01T01:30:00Z'),
        z('2026-01-01T03:00:00Z'),
        z('2026-01-01T04:30:00Z'),
      ]);
      const sixHours = parse('pt6h', 'UTC', '2026-01-01T00:00:00Z');
      expect(sixHours.nextAfter(at('2026-01-10T07:00:00Z'))).toBe(at('2026-01-10T12:00:00Z'));
    });

    it('adds date parts on the wall clock and time parts as elapsed time', () => {
      // 11:00 CET; k=1: 03-29 11:00 CEST (09:00Z) + 12h; k=2: 03-30 11:00 CEST + 24h.
      const schedule = parse('P1DT12H', 'Europe/Madrid', '2026-03-28T10:00:00Z');
      expect(firings(schedule, 2)).toEqual([z('2026-03-29T21:00:00Z'), z('2026-03-31T09:00:00Z')]);
    });

    it('P1W and P1M behave like weekly and monthly', () => {
      const anchor = '2026-01-31T10:00:00Z';
      expect(firings(parse('P1W', 'UTC', anchor), 2)).toEqual([
        z('2026-02-07T10:00:00Z'),
        z('2026-02-14T10:00:00Z'),
      ]);
      expect(firings(parse('P1M', 'UTC', anchor), 2)).toEqual([
        z('2026-02-28T10:00:00Z'),
        z('2026-03-31T10:00:00Z'),
      ]);
    });

    it.each([
      'P',
      'PT',
      'P1H',
      'P1DT',
      'P1D2H',
      'PT1H30',
      'P1.5D',
      'PT1,5H',
      '-P1D',
      'P0D',
      'PT0S',
    ])('rejects %s', (frequency) => {
      const error = errorOf(() => parse(frequency, 'UTC', '2026-01-01T00:00:00Z'));
      expect(error.field).toBe('frequency');
      expect(error.message).toMatch(/ISO 8601 duration/);
    });

    it.each(['PT30S', 'PT59S'])('rejects %s as more often than once a minute', (frequency) => {
      const error = errorOf(() => parse(frequency, 'UTC', '2026-01-01T00:00:00Z'));
      expect(error.message).toMatch(/more often than once a minute/);
    });

    it('accepts exactly one minute', () => {
      expect(parse('PT1M', 'UTC', '2026-01-01T00:00:00Z').firstRun()).toBe(
        at('2026-01-01T00:01:00Z'),
      );
    });

    it('rejects a duration that would first fire after the year 9999', () => {
      expect(errorOf(() => parse('P9000Y', 'UTC', '2026-01-01T00:00:00Z')).message).toMatch(
        /never fires/,
      );
    });
  });

  describe('cron', () => {
    it('evaluates in a half-hour-offset zone', () => {
      // 09:00 IST = 03:30Z; 2026-01-01 is a Thursday.
      const schedule = parse('0 9 * * 1-5', 'Asia/Kolkata', '2026-01-01T00:00:00Z');
      expect(schedule.kind).toBe('cron');
      expect(firings(schedule, 3)).toEqual([
        z('2026-01-01T03:30:00Z'),
        z('2026-01-02T03:30:00Z'),
        z('2026-01-05T03:30:00Z'),
      ]);
      expect(parse('0 9 * * *', 'Asia/Kathmandu', '2026-01-01T00:00:00Z').firstRun()).toBe(
        at('2026-01-01T03:15:00Z'),
      );
    });

    it('fires strictly after creation', () => {
      const schedule = parse('0 9 * * *', 'UTC', '2026-01-01T09:00:00Z');
      expect(schedule.firstRun()).toBe(at('2026-01-02T09:00:00Z'));
    });

    it('accepts month and day names in any case', () => {
      // Mondays in January; 2027-01-04 is the first one after June 2026.
      expect(parse('0 9 * JAN MON', 'UTC', '2026-06-01T00:00:00Z').firstRun()).toBe(
        at('2027-01-04T09:00:00Z'),
      );
      expect(parse('0 9 * * sat-sun', 'UTC', '2026-01-01T00:00:00Z').firstRun()).toBe(
        at('2026-01-03T09:00:00Z'),
      );
    });

    it('30 2 * * * moves to 03:30 on the spring-forward day (Madrid)', () => {
      const schedule = parse('30 2 * * *', 'Europe/Madrid', '2026-03-27T12:00:00Z');
      expect(firings(schedule, 3)).toEqual([
        z('2026-03-28T01:30:00Z'), // 02:30 CET
        z('2026-03-29T01:30:00Z'), // 02:30 skipped -> 03:30 CEST
        z('2026-03-30T00:30:00Z'), // 02:30 CEST
      ]);
    });

    it('finds a gap-shifted time that reads earlier than the query time', () => {
      // At 03:00 CEST the shifted 02:30 (03:30 CEST) is still ahead.
      const schedule = parse('30 2 * * *', 'Europe/Madrid', '2026-03-27T12:00:00Z');
      expect(schedule.nextAfter(at('2026-03-29T01:00:00Z'))).toBe(at('2026-03-29T01:30:00Z'));
      expect(schedule.nextAfter(at('2026-03-29T01:30:00Z'))).toBe(at('2026-03-30T00:30:00Z'));
    });

    it('30 2 * * * moves to 03:30 on the spring-forward day (New York)', () => {
      const schedule = parse('30 2 * * *', 'America/New_York', '2026-03-06T12:00:00Z');
      expect(firings(schedule, 3)).toEqual([
        z('2026-03-07T07:30:00Z'),
        z('2026-03-08T07:30:00Z'),
        z('2026-03-09T06:30:00Z'),
      ]);
    });

    it('30 1 * * * fires once, at the earlier instant, on the fall-back day (New York)', () => {
      const schedule = parse('30 1 * * *', 'America/New_York', '2026-10-30T12:00:00Z');
      expect(firings(schedule, 3)).toEqual([
        z('2026-10-31T05:30:00Z'), // EDT
        z('2026-11-01T05:30:00Z'), // first 01:30, EDT; the EST one is skipped
        z('2026-11-02T06:30:00Z'), // EST
      ]);
    });

    it('30 2 * * * fires once on the fall-back day (Madrid)', () => {
      const schedule = parse('30 2 * * *', 'Europe/Madrid', '2026-10-24T12:00:00Z');
      expect(firings(schedule, 2)).toEqual([z('2026-10-25T00:30:00Z'), z('2026-10-26T01:30:00Z')]);
    });

    it('*/30 across a repeated hour yields no duplicate instants', () => {
      const schedule = parse('*/30 * * * *', 'Europe/Madrid', '2026-10-24T23:00:00Z');
      expect(isoList(schedule.occurrences(at('2026-10-24T23:00:00Z'), 6))).toEqual([
        z('2026-10-24T23:30:00Z'), // 01:30 CEST
        z('2026-10-25T00:00:00Z'), // 02:00 CEST
        z('2026-10-25T00:30:00Z'), // 02:30 CEST
        z('2026-10-25T02:00:00Z'), // 03:00 CET; the repeated 02:00/02:30 CET do not fire again
        z('2026-10-25T02:30:00Z'),
        z('2026-10-25T03:00:00Z'),
      ]);
    });

    it('*/30 across a gap: shifted and real times landing on one instant fire once', () => {
      const schedule = parse('*/30 * * * *', 'Europe/Madrid', '2026-03-29T00:00:00Z');
      expect(isoList(schedule.occurrences(at('2026-03-29T00:00:00Z'), 5))).toEqual([
        z('2026-03-29T00:30:00Z'), // 01:30 CET
        z('2026-03-29T01:00:00Z'), // 02:00 -> 03:00 CEST, and 03:00 itself
        z('2026-03-29T01:30:00Z'), // 02:30 -> 03:30 CEST, and 03:30 itself
        z('2026-03-29T02:00:00Z'),
        z('2026-03-29T02:30:00Z'),
      ]);
    });

    it('a list of hours spanning the gap dedupes shifted times', () => {
      const schedule = parse('0 2,3 * * *', 'Europe/Madrid', '2026-03-28T12:00:00Z');
      expect(firings(schedule, 3)).toEqual([
        z('2026-03-29T01:00:00Z'), // 02:00 -> 03:00 CEST == 03:00 CEST
        z('2026-03-30T00:00:00Z'), // 02:00 CEST
        z('2026-03-30T01:00:00Z'), // 03:00 CEST
      ]);
    });

    it('handles the southern hemisphere (Sydney)', () => {
      const spring = parse('0 2 * * *', 'Australia/Sydney', '2026-10-02T00:00:00Z');
      expect(firings(spring, 3)).toEqual([
        z('2026-10-02T16:00:00Z'), // 10-03 02:00 AEST
        z('2026-10-03T16:00:00Z'), // 10-04 02:00 skipped -> 03:00 AEDT
        z('2026-10-04T15:00:00Z'), // 10-05 02:00 AEDT
      ]);
      const fall = parse('30 2 * * *', 'Australia/Sydney', '2026-04-03T00:00:00Z');
      expect(firings(fall, 3)).toEqual([
        z('2026-04-03T15:30:00Z'), // 04-04 02:30 AEDT
        z('2026-04-04T15:30:00Z'), // 04-05 02:30 repeated -> AEDT
        z('2026-04-05T16:30:00Z'), // 04-06 02:30 AEST
      ]);
    });

    it('handles a 30-minute DST shift (Lord Howe)', () => {
      const spring = parse('15 2 * * *', 'Australia/Lord_Howe', '2026-10-02T00:00:00Z');
      expect(firings(spring, 3)).toEqual([
        z('2026-10-02T15:45:00Z'), // 10-03 02:15 +10:30
        z('2026-10-03T15:45:00Z'), // 10-04 02:15 skipped -> 02:45 +11
        z('2026-10-04T15:15:00Z'), // 10-05 02:15 +11
      ]);
      const fall = parse('45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T00:00:00Z');
      expect(firings(fall, 2)).toEqual([
        z('2026-04-04T14:45:00Z'), // 04-05 01:45 repeated -> +11
        z('2026-04-05T15:15:00Z'), // 04-06 01:45 +10:30
      ]);
    });

    it.each([
      ['0 0 0 * * *', /exactly 5 fields/],
      ['0 0 0 * * * 2026', /exactly 5 fields/],
      ['0 9 * *', /exactly 5 fields/],
      ['60 * * * *', /not a valid 5-field cron expression/],
      ['0 25 * * *', /not a valid 5-field cron expression/],
      ['0 9 * * FUNDAY', /not a valid 5-field cron expression/],
      ['0 0 30 2 *', /never fires/],
      ['0 0 31 4,6 *', /never fires/],
    ])('rejects %s', (frequency, message) => {
      const error = errorOf(() => parse(frequency, 'UTC', '2026-01-01T00:00:00Z'));
      expect(error.field).toBe('frequency');
      expect(error.message).toMatch(message);
    });
  });

  describe('RRULE', () => {
    it('weekly BYDAY keeps 10:00 local across the spring change', () => {
      // Created Fri 2026-03-20; 10:00 CET = 09:00Z, 10:00 CEST = 08:00Z from 03-29.
      const schedule = parse(
        'FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=10;BYMINUTE=0',
        'Europe/Madrid',
        '2026-03-20T11:00:00Z',
      );
      expect(schedule.kind).toBe('rrule');
      expect(firings(schedule, 4)).toEqual([
        z('2026-03-23T09:00:00Z'),
        z('2026-03-26T09:00:00Z'),
        z('2026-03-30T08:00:00Z'),
        z('2026-04-02T08:00:00Z'),
      ]);
    });

    it('accepts the RRULE: prefix and any case', () => {
      const expected = at('2026-03-23T09:00:00Z');
      for (const frequency of [
        'RRULE:FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=10;BYMINUTE=0',
        'rrule:freq=weekly;byday=mo,th;byhour=10;byminute=0',
        ' Freq=Weekly;ByDay=Mo,Th;ByHour=10;ByMinute=0; ',
        'RRULE: FREQ=WEEKLY; BYDAY=MO, TH; BYHOUR=10; BYMINUTE=0',
      ]) {
        expect(parse(frequency, 'Europe/Madrid', '2026-03-20T11:00:00Z').firstRun()).toBe(expected);
      }
    });

    it('without BYHOUR fires at the creation wall-clock time, to the minute', () => {
      // Created 09:00:20 EDT; fires 09:00 local each day, EST after the change.
      const schedule = parse('FREQ=DAILY', 'America/New_York', '2026-10-31T13:00:20Z');
      expect(firings(schedule, 2)).toEqual([z('2026-11-01T14:00:00Z'), z('2026-11-02T14:00:00Z')]);
    });

    it('daily in Lord Howe follows the 30-minute shift', () => {
      // Created 22:30 +10:30 on 10-02.
      const schedule = parse('FREQ=DAILY', 'Australia/Lord_Howe', '2026-10-02T12:00:00Z');
      expect(firings(schedule, 3)).toEqual([
        z('2026-10-03T12:00:00Z'),
        z('2026-10-04T11:30:00Z'),
        z('2026-10-05T11:30:00Z'),
      ]);
    });

    it('supports ordinal BYDAY and BYSETPOS', () => {
      // Last Friday 17:00 New York: EST in Jan/Feb, EDT in March.
      const lastFriday = parse(
        'FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0',
        'America/New_York',
        '2026-01-01T00:00:00Z',
      );
      expect(firings(lastFriday, 3)).toEqual([
        z('2026-01-30T22:00:00Z'),
        z('2026-02-27T22:00:00Z'),
        z('2026-03-27T21:00:00Z'),
      ]);
      const lastWeekday = parse(
        'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;BYHOUR=18;BYMINUTE=0',
        'UTC',
        '2026-01-01T00:00:00Z',
      );
      expect(firings(lastWeekday, 3)).toEqual([
        z('2026-01-30T18:00:00Z'),
        z('2026-02-27T18:00:00Z'),
        z('2026-03-31T18:00:00Z'),
      ]);
    });

    it('keeps INTERVAL aligned to the creation week, also far ahead', () => {
      // DTSTART week is 2025-12-29..2026-01-04; its Monday is before creation.
      const schedule = parse(
        'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYHOUR=10;BYMINUTE=0',
        'UTC',
        '2026-01-01T00:00:00Z',
      );
      expect(firings(schedule, 2)).toEqual([z('2026-01-12T10:00:00Z'), z('2026-01-26T10:00:00Z')]);
      // 2026-01-12 + 52 weeks.
      expect(schedule.nextAfter(at('2027-01-01T00:00:00Z'))).toBe(at('2027-01-11T10:00:00Z'));
    });

    it('keeps monthly and hourly INTERVAL alignment far ahead', () => {
      const quarterly = parse(
        'FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15;BYHOUR=9;BYMINUTE=0',
        'UTC',
        '2026-01-20T00:00:00Z',
      );
      expect(quarterly.firstRun()).toBe(at('2026-04-15T09:00:00Z'));
      expect(quarterly.nextAfter(at('2030-02-01T00:00:00Z'))).toBe(at('2030-04-15T09:00:00Z'));
      // Every 5 hours from 00:10 on 01-01: 1415 h later is 02-28 23:10, then 03-01 04:10.
      const fiveHourly = parse('FREQ=HOURLY;INTERVAL=5', 'UTC', '2026-01-01T00:10:00Z');
      expect(fiveHourly.firstRun()).toBe(at('2026-01-01T05:10:00Z'));
      expect(fiveHourly.nextAfter(at('2026-03-01T02:00:00Z'))).toBe(at('2026-03-01T04:10:00Z'));
    });

    it('counts COUNT from DTSTART, the creation time', () => {
      const schedule = parse(
        'FREQ=DAILY;COUNT=3;BYHOUR=9;BYMINUTE=0',
        'UTC',
        '2026-01-01T08:00:00Z',
      );
      expect(isoList(schedule.occurrences(at('2026-01-01T00:00:00Z'), 10))).toEqual([
        z('2026-01-01T09:00:00Z'),
        z('2026-01-02T09:00:00Z'),
        z('2026-01-03T09:00:00Z'),
      ]);
      expect(schedule.nextAfter(at('2026-01-03T09:00:00Z'))).toBeNull();
      // DTSTART (10:00, creation) is the first of two; only the second is after creation.
      const two = parse('FREQ=DAILY;COUNT=2', 'UTC', '2026-01-01T10:00:00Z');
      expect(two.occurrences(at('2026-01-01T00:00:00Z'), 10)).toEqual([at('2026-01-02T10:00:00Z')]);
    });

    it('stops at a UTC UNTIL, inclusive', () => {
      // 09:00 CET = 08:00Z.
      const schedule = parse(
        'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;UNTIL=20260103T080000Z',
        'Europe/Madrid',
        '2026-01-01T07:00:00Z',
      );
      expect(isoList(schedule.occurrences(at('2026-01-01T07:00:00Z'), 10))).toEqual([
        z('2026-01-01T08:00:00Z'),
        z('2026-01-02T08:00:00Z'),
        z('2026-01-03T08:00:00Z'),
      ]);
    });

    it('reads a date-only UNTIL as the whole local day', () => {
      const schedule = parse(
        'FREQ=DAILY;BYHOUR=23;BYMINUTE=30;UNTIL=20260102',
        'Europe/Madrid',
        '2026-01-01T07:00:00Z',
      );
      expect(isoList(schedule.occurrences(at('2026-01-01T07:00:00Z'), 10))).toEqual([
        z('2026-01-01T22:30:00Z'),
        z('2026-01-02T22:30:00Z'),
      ]);
    });

    it('orders instants, not wall times, when a gap shifts one past the next', () => {
      // 02:45 and 03:15 daily. On 03-29, 02:45 is skipped -> 03:45 CEST, after 03:15 CEST.
      const schedule = parse(
        'FREQ=DAILY;BYHOUR=2,3;BYMINUTE=15,45;BYSETPOS=2,3',
        'Europe/Madrid',
        '2026-03-28T12:00:00Z',
      );
      expect(firings(schedule, 4)).toEqual([
        z('2026-03-29T01:15:00Z'),
        z('2026-03-29T01:45:00Z'),
        z('2026-03-30T00:45:00Z'),
        z('2026-03-30T01:15:00Z'),
      ]);
    });

    it('allows once a minute', () => {
      const schedule = parse('FREQ=MINUTELY', 'UTC', '2026-01-01T00:00:30Z');
      expect(firings(schedule, 2)).toEqual([z('2026-01-01T00:01:00Z'), z('2026-01-01T00:02:00Z')]);
    });

    it('finds sparse occurrences', () => {
      // Feb 29 on a Monday: 2044, then 2072.
      const schedule = parse(
        'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYHOUR=9;BYMINUTE=0',
        'UTC',
        '2026-01-01T00:00:00Z',
      );
      expect(firings(schedule, 2)).toEqual([z('2044-02-29T09:00:00Z'), z('2072-02-29T09:00:00Z')]);
    });

    it.each([
      ['FREQ=SECONDLY', /more often than once a minute/],
      ['FREQ=MINUTELY;BYSECOND=0,30', /more often than once a minute/],
      ['FREQ=DAILY;UNTIL=20250101T000000Z', /never fires/],
      ['FREQ=DAILY;COUNT=1', /never fires/],
      ['FREQ=DAILY;COUNT=0', /never fires/],
      ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', /never fires/],
      ['FREQ=HOURLY;INTERVAL=2;BYHOUR=1', /never fires/],
      ['FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1', /never fires/],
      ['DTSTART:20260101T090000Z\nRRULE:FREQ=DAILY', /without DTSTART/],
      ['FREQ=DAILY;DTSTART=20260101T090000Z', /without DTSTART/],
      ['FREQ=DAILY;TZID=Europe/Madrid', /TZID/],
      ['BYDAY=MO', /FREQ is required/],
      ['FREQ=FORTNIGHTLY', /FREQ must be one of/],
      ['FREQ=DAILY;FOO=1', /unknown part FOO/],
      ['FREQ=DAILY;INTERVAL=0', /INTERVAL/],
      ['FREQ=DAILY;BYHOUR=24', /BYHOUR/],
      ['FREQ=WEEKLY;BYDAY=XX', /BYDAY/],
      ['FREQ=WEEKLY;BYDAY=1MO', /BYDAY with an ordinal/],
      ['FREQ=DAILY;FREQ=WEEKLY', /more than once/],
      ['FREQ=DAILY;COUNT=2;UNTIL=20270101T000000Z', /COUNT and UNTIL/],
      ['FREQ=DAILY;UNTIL=20261301', /UNTIL/],
      ['FREQ=WEEKLY;BYMONTHDAY=1', /BYMONTHDAY/],
      ['FREQ=DAILY;BYSETPOS=1', /BYSETPOS/],
    ])('rejects %j', (frequency, message) => {
      const error = errorOf(() => parse(frequency, 'UTC', '2026-01-01T00:00:00Z'));
      expect(error.field).toBe('frequency');
      expect(error.message).toMatch(message);
    });
  });

  describe('everything else', () => {
    it.each(['', '   ', 'every day', 'sometimes', '9am', 'Pizza', '@daily', 'biweekly'])(
      'rejects %j with the grammar summary',
      (frequency) => {
        const error = errorOf(() => parse(frequency, 'UTC', '2026-01-01T00:00:00Z'));
        expect(error).toBeInstanceOf(ScheduleError);
        expect(error.field).toBe('frequency');
        expect(error.message).toBe(
          'frequency must be once, hourly, daily, weekly, monthly, a 5-field cron expression, an RFC 5545 RRULE or an ISO 8601 duration',
        );
      },
    );

    it('gives one-line messages without internals', () => {
      for (const frequency of ['60 * * * *', 'FREQ=DAILY;BYDAY=ZZ', 'P1.5D', 'FREQ=DAILY;X=1']) {
        const message = errorOf(() => parse(frequency, 'UTC', '2026-01-01T00:00:00Z')).message;
        expect(message).not.toMatch(/\n|\bat \S+:\d+|CronPattern|TypeError/);
      }
    });
  });

  describe('occurrences', () => {
    it('returns count instants, strictly increasing, strictly after fromMs', () => {
      const schedule = parse('0 9 * * 1-5', 'America/New_York', '2026-03-01T00:00:00Z');
      const from = at('2026-03-05T14:00:00Z'); // Thu 09:00 EST, itself an occurrence
      const list = schedule.occurrences(from, 5);
      expect(isoList(list)).toEqual([
        z('2026-03-06T14:00:00Z'), // Fri, EST
        z('2026-03-09T13:00:00Z'), // Mon, EDT
        z('2026-03-10T13:00:00Z'),
        z('2026-03-11T13:00:00Z'),
        z('2026-03-12T13:00:00Z'),
      ]);
      expect(schedule.occurrences(from, 0)).toEqual([]);
    });

    it('never skips an occurrence, whatever instant nextAfter is asked about', () => {
      const cases: Array<[string, string]> = [
        ['*/15 * * * *', 'Europe/Madrid'],
        ['FREQ=HOURLY;BYMINUTE=0,30', 'Australia/Lord_Howe'],
        ['PT45M', 'America/New_York'],
        ['daily', 'Australia/Sydney'],
      ];
      for (const [frequency, zone] of cases) {
        const schedule = parse(frequency, zone, '2026-03-28T00:00:00Z');
        const list = schedule.occurrences(at('2026-03-28T00:00:00Z'), 500);
        expect(list).toHaveLength(500);
        for (let i = 1; i < list.length; i++) {
          expect(list[i]).toBeGreaterThan(list[i - 1]);
          expect(schedule.nextAfter(Math.floor((list[i - 1] + list[i]) / 2))).toBe(list[i]);
          expect(schedule.nextAfter(list[i] - 1)).toBe(list[i]);
        }
      }
    });
  });
});

describe('loadStoredSchedule', () => {
  it('rebuilds the same schedule as parseSchedule, for the dispatcher', () => {
    const anchor = Date.UTC(2026, 2, 27, 12);
    for (const frequency of [
      'daily',
      '0 9 * * 1-5',
      'RRULE:FREQ=WEEKLY;BYDAY=MO',
      'PT6H',
      'once',
    ]) {
      const parsed = parseSchedule(frequency, 'Europe/Madrid', anchor);
      const stored = loadStoredSchedule(frequency, 'Europe/Madrid', anchor);
      expect(stored.occurrences(anchor, 5)).toEqual(parsed.occurrences(anchor, 5));
      expect(stored.nextAfter(anchor + 86_400_000)).toBe(parsed.nextAfter(anchor + 86_400_000));
    }
  });
});
