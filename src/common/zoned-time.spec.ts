import {
  HOUR_MS,
  isValidTimeZone,
  MINUTE_MS,
  offsetAt,
  toInstant,
  toWall,
  wallFromFields,
} from './zoned-time';

// Expected values come from the zones' published UTC offsets and transition times.
const at = (iso: string) => Date.parse(iso);
const wall = (iso: string) => Date.parse(`${iso}Z`);
const iso = (ms: number) => new Date(ms).toISOString();

describe('zoned-time', () => {
  describe('isValidTimeZone', () => {
    it.each([
      'UTC',
      'Europe/Madrid',
      'America/New_York',
      'Asia/Kolkata',
      'Asia/Calcutta',
      'America/Sao_Paulo',
      'Australia/Lord_Howe',
      'Etc/GMT+5',
    ])('accepts %s', (zone) => {
      expect(isValidTimeZone(zone)).toBe(true);
    });

    it.each(['', ' ', '+02:00', 'UTC+01:00', 'GMT+2', 'Z', 'Foo/Bar', 'Europe/Madrid ', 'local'])(
      'rejects %j',
      (zone) => {
        expect(isValidTimeZone(zone)).toBe(false);
      },
    );
  });

  describe('offsetAt', () => {
    it.each([
      ['UTC', '2026-07-01T12:00:00Z', 0],
      ['Europe/Madrid', '2026-01-15T12:00:00Z', 1 * HOUR_MS],
      ['Europe/Madrid', '2026-07-15T12:00:00Z', 2 * HOUR_MS],
      ['America/New_York', '2026-01-15T12:00:00Z', -5 * HOUR_MS],
      ['America/New_York', '2026-07-15T12:00:00Z', -4 * HOUR_MS],
      ['America/Sao_Paulo', '2026-01-15T12:00:00Z', -3 * HOUR_MS],
      ['Asia/Kolkata', '2026-07-15T12:00:00Z', 5.5 * HOUR_MS],
      ['Asia/Kathmandu', '2026-07-15T12:00:00Z', 5.75 * HOUR_MS],
      ['Australia/Adelaide', '2026-01-15T12:00:00Z', 10.5 * HOUR_MS],
      ['Australia/Adelaide', '2026-07-15T12:00:00Z', 9.5 * HOUR_MS],
      ['Australia/Lord_Howe', '2026-01-15T12:00:00Z', 11 * HOUR_MS],
      ['Australia/Lord_Howe', '2026-07-15T12:00:00Z', 10.5 * HOUR_MS],
    ])('%s at %s is %d ms', (zone, instant, offset) => {
      expect(offsetAt(zone, at(instant))).toBe(offset);
    });

    it.each([
      // Zone, instant of the change, offset before, offset after.
      ['Europe/Madrid', '2026-03-29T01:00:00Z', 1, 2],
      ['Europe/Madrid', '2026-10-25T01:00:00Z', 2, 1],
      ['America/New_York', '2026-03-08T07:00:00Z', -5, -4],
      ['America/New_York', '2026-11-01T06:00:00Z', -4, -5],
      ['Australia/Sydney', '2026-04-04T16:00:00Z', 11, 10],
      ['Australia/Sydney', '2026-10-03T16:00:00Z', 10, 11],
      ['Australia/Lord_Howe', '2026-04-04T15:00:00Z', 11, 10.5],
      ['Australia/Lord_Howe', '2026-10-03T15:30:00Z', 10.5, 11],
    ])('%s changes offset exactly at %s', (zone, instant, before, after) => {
      expect(offsetAt(zone, at(instant) - 1)).toBe(before * HOUR_MS);
      expect(offsetAt(zone, at(instant) - 1000)).toBe(before * HOUR_MS);
      expect(offsetAt(zone, at(instant))).toBe(after * HOUR_MS);
      expect(offsetAt(zone, at(instant) + 30 * MINUTE_MS)).toBe(after * HOUR_MS);
    });

    it('gives the same answer when asked again (cached)', () => {
      const instant = at('2026-03-29T00:59:59Z');
      expect(offsetAt('Europe/Madrid', instant)).toBe(HOUR_MS);
      expect(offsetAt('Europe/Madrid', instant)).toBe(HOUR_MS);
      expect(offsetAt('Europe/Madrid', instant + 1000)).toBe(2 * HOUR_MS);
    });
  });

  describe('toWall', () => {
    it.each([
      ['Asia/Kathmandu', '2026-01-01T00:00:00Z', '2026-01-01T05:45:00'],
      ['Asia/Kolkata', '2026-01-01T20:00:00Z', '2026-01-02T01:30:00'],
      ['America/New_York', '2026-11-01T05:30:00Z', '2026-11-01T01:30:00'],
      ['America/New_York', '2026-11-01T06:30:00Z', '2026-11-01T01:30:00'],
      ['Australia/Lord_Howe', '2026-10-03T15:30:00Z', '2026-10-04T02:30:00'],
    ])('%s shows %s as %s', (zone, instant, local) => {
      expect(iso(toWall(zone, at(instant)))).toBe(`${local}.000Z`);
    });
  });

  describe('toInstant', () => {
    it.each([
      ['UTC', '2026-07-01T12:00:00', '2026-07-01T12:00:00Z'],
      ['Europe/Madrid', '2026-07-01T12:00:00', '2026-07-01T10:00:00Z'],
      ['Asia/Kolkata', '2026-01-01T09:00:00', '2026-01-01T03:30:00Z'],
      ['Asia/Kathmandu', '2026-01-01T09:00:00', '2026-01-01T03:15:00Z'],
      ['America/Sao_Paulo', '2026-01-01T09:00:00', '2026-01-01T12:00:00Z'],
    ])('maps an ordinary %s wall time %s to %s', (zone, local, expected) => {
      expect(iso(toInstant(zone, wall(local)))).toBe(expected.replace('Z', '.000Z'));
    });

    it.each([
      // A skipped wall time moves forward by the gap: 02:30 in a 02:00->03:00 gap is 03:30.
      ['Europe/Madrid', '2026-03-29T02:30:00', '2026-03-29T01:30:00Z'],
      ['Europe/Madrid', '2026-03-29T02:00:00', '2026-03-29T01:00:00Z'],
      ['America/New_York', '2026-03-08T02:30:00', '2026-03-08T07:30:00Z'],
      ['Australia/Sydney', '2026-10-04T02:30:00', '2026-10-03T16:30:00Z'],
      ['Australia/Adelaide', '2026-10-04T02:30:00', '2026-10-03T17:00:00Z'],
      // Lord Howe skips only 02:00-02:30, so 02:15 becomes 02:45 (+11:00).
      ['Australia/Lord_Howe', '2026-10-04T02:15:00', '2026-10-03T15:45:00Z'],
    ])('moves %s gap time %s forward to %s', (zone, local, expected) => {
      expect(iso(toInstant(zone, wall(local)))).toBe(expected.replace('Z', '.000Z'));
    });

    it.each([
      // A repeated wall time maps to its earlier instant (the summer-time offset).
      ['Europe/Madrid', '2026-10-25T02:30:00', '2026-10-25T00:30:00Z'],
      ['America/New_York', '2026-11-01T01:30:00', '2026-11-01T05:30:00Z'],
      ['Australia/Sydney', '2026-04-05T02:30:00', '2026-04-04T15:30:00Z'],
      ['Australia/Lord_Howe', '2026-04-05T01:45:00', '2026-04-04T14:45:00Z'],
    ])('maps %s repeated time %s to its earlier instant %s', (zone, local, expected) => {
      expect(iso(toInstant(zone, wall(local)))).toBe(expected.replace('Z', '.000Z'));
    });

    it('round-trips instants that are not in a repeated hour', () => {
      const zones = ['Europe/Madrid', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
      for (const zone of zones) {
        for (let instant = at('2026-01-01T00:17:00Z'); instant < at('2027-01-01');) {
          const local = toWall(zone, instant);
          const repeated = offsetAt(zone, instant - 3 * HOUR_MS) > offsetAt(zone, instant);
          if (!repeated) expect(toInstant(zone, local)).toBe(instant);
          instant += 7 * HOUR_MS + 13 * MINUTE_MS;
        }
      }
    });
  });

  describe('wallFromFields', () => {
    it('reads years below 100 literally, unlike Date.UTC', () => {
      expect(iso(wallFromFields(50, 3, 1, 12))).toBe('0050-03-01T12:00:00.000Z');
      expect(iso(wallFromFields(2026, 2, 29))).toBe('2026-03-01T00:00:00.000Z');
      expect(iso(wallFromFields(2026, 3, 0))).toBe('2026-02-28T00:00:00.000Z');
    });
  });
});
