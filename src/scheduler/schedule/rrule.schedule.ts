import { Frequency, Options, RRule, Weekday } from 'rrule';

import { ScheduleError } from './schedule.types';
import { WallClockSchedule } from './wall-clock.schedule';
import {
  DAY_MS,
  HOUR_MS,
  MAX_TIME_MS,
  MINUTE_MS,
  toWall,
  wallFromFields,
} from '../../common/zoned-time';

/**
 * RFC 5545 RRULEs, evaluated with the rrule package in floating mode: DTSTART is the creation
 * instant's wall-clock time (to the minute) and every date rrule sees is a wall value read as
 * UTC; the zone is applied afterwards (rrule's own TZID support is unreliable).
 */

const FREQUENCIES: Readonly<Record<string, Frequency>> = {
  YEARLY: Frequency.YEARLY,
  MONTHLY: Frequency.MONTHLY,
  WEEKLY: Frequency.WEEKLY,
  DAILY: Frequency.DAILY,
  HOURLY: Frequency.HOURLY,
  MINUTELY: Frequency.MINUTELY,
  SECONDLY: Frequency.SECONDLY,
};
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const RULE_PARTS = new Set([
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'WKST',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
]);

/**
 * rrule has no search horizon: a rule that matches no date (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30)
 * loops to year 9999 for ~10 s. Its option reads are a fair measure of work done, so a query
 * stops after this many (about a century of daily candidates) and counts as "no occurrence".
 */
const WORK_BUDGET = 500_000;
const BUDGET_EXCEEDED = new Error('rrule work budget exceeded');
/** Walls fetched per rrule pass; a nextAfter call usually reads two or three. */
const PREFETCH = 8;

/** Whether the text is shaped like an RRULE (nothing else in the grammar contains '='). */
export function looksLikeRRule(text: string): boolean {
  return /^RRULE:/i.test(text) || text.includes('=') || /DTSTART/i.test(text);
}

function invalid(detail: string): ScheduleError {
  return new ScheduleError('frequency', `frequency is not a valid RRULE: ${detail}`);
}

function neverFires(): ScheduleError {
  return new ScheduleError(
    'frequency',
    'frequency never fires: the RRULE has no occurrence after the follow-up is created',
  );
}

function tooFrequent(): ScheduleError {
  return new ScheduleError('frequency', 'frequency must not fire more often than once a minute');
}

function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d{1,7}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw invalid(`${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

/** A comma list of integers; signed lists allow -max..-1 and 1..max (RFC 5545 ordinals). */
function integerList(name: string, value: string, min: number, max: number, signed = false) {
  const values = value.split(',').map((item) => {
    const n = /^[+-]?\d{1,3}$/.test(item) ? Number(item) : Number.NaN;
    const ok = signed ? n !== 0 && Math.abs(n) <= max : n >= min && n <= max;
    if (!ok) {
      const range = signed ? `${-max} to -1 or 1 to ${max}` : `${min} to ${max}`;
      throw invalid(`${name} values must be from ${range}`);
    }
    return n;
  });
  return [...new Set(values)];
}

function weekday(name: string, value: string): number {
  const index = WEEKDAYS.indexOf(value);
  if (index < 0) throw invalid(`${name} must be one of ${WEEKDAYS.join(', ')}`);
  return index;
}

interface Until {
  /** rrule's bound, a wall value. */
  readonly wall: number;
  /** An exact instant bound, for UNTIL given in UTC. */
  readonly instant: number;
}

function parseUntil(value: string, timeZone: string): Until {
  const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value);
  if (!match) throw invalid('UNTIL must look like 20261231 or 20261231T235959Z');
  const [year, month, day, hour, minute, second] = match
    .slice(1, 7)
    .map((part) => (part === undefined ? 0 : Number(part)));
  const wall = wallFromFields(year, month, day, hour, minute, second);
  const date = new Date(wall);
  if (
    date.getUTCMonth() + 1 !== month ||
    date.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    throw invalid('UNTIL is not a real date and time');
  }
  if (match[7]) {
    // A UTC bound: give rrule a wall bound loose enough for any offset, then cut exactly.
    return { wall: Math.min(toWall(timeZone, wall) + 26 * HOUR_MS, MAX_TIME_MS), instant: wall };
  }
  // Floating UNTIL is local time; a bare date includes the whole day.
  return { wall: match[4] === undefined ? wall + DAY_MS - 1000 : wall, instant: Infinity };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** rrule options with every default it would take from DTSTART spelled out, so DTSTART can move. */
interface RuleOptions extends Partial<Options> {
  freq: Frequency;
  interval: number;
  dtstart: Date;
}

export function parseRRule(text: string, timeZone: string, anchorMs: number): WallClockSchedule {
  if (/[\r\n]/.test(text) || /DTSTART|TZID/i.test(text)) {
    throw invalid(
      'give only the RRULE part, without DTSTART, TZID or extra lines; it starts when the follow-up is created, in time_zone',
    );
  }
  const parts = new Map<string, string>();
  // RFC 5545 has no spaces in a rule; tolerate them (and a trailing ';') rather than fail.
  const body = text
    .replace(/^RRULE:/i, '')
    .replace(/\s+/g, '')
    .toUpperCase();
  for (const part of body.split(';')) {
    if (!part) continue;
    const match = /^([A-Z]+)=(.+)$/.exec(part);
    if (!match) throw invalid(`"${part.slice(0, 40)}" is not a NAME=VALUE part`);
    const [, name, value] = match;
    if (!RULE_PARTS.has(name)) throw invalid(`unknown part ${name.slice(0, 40)}`);
    if (parts.has(name)) throw invalid(`${name} is given more than once`);
    parts.set(name, value);
  }

  const freqText = parts.get('FREQ');
  if (freqText === undefined) throw invalid('FREQ is required (e.g. FREQ=WEEKLY)');
  const freq = FREQUENCIES[freqText];
  if (freq === undefined) {
    throw invalid(`FREQ must be one of ${Object.keys(FREQUENCIES).join(', ')}`);
  }
  if (freq === Frequency.SECONDLY) throw tooFrequent();
  const get = (name: string) => parts.get(name);
  const has = (name: string) => parts.has(name);

  const interval = has('INTERVAL') ? integer('INTERVAL', get('INTERVAL') ?? '', 1, 1_000_000) : 1;
  const count = has('COUNT') ? integer('COUNT', get('COUNT') ?? '', 0, 1_000_000) : null;
  if (count === 0) throw neverFires();
  if (count !== null && has('UNTIL')) throw invalid('COUNT and UNTIL cannot be used together');
  const until = has('UNTIL') ? parseUntil(get('UNTIL') ?? '', timeZone) : null;

  const list = (name: string, min: number, max: number, signed = false) => {
    const value = get(name);
    return value === undefined ? null : integerList(name, value, min, max, signed);
  };
  const bysecond = list('BYSECOND', 0, 59);
  // Two seconds of one minute are always less than a minute apart.
  if (bysecond && bysecond.length > 1) throw tooFrequent();
  const byminute = list('BYMINUTE', 0, 59);
  const byhour = list('BYHOUR', 0, 23);
  const bymonthday = list('BYMONTHDAY', 0, 31, true);
  const byyearday = list('BYYEARDAY', 0, 366, true);
  const byweekno = list('BYWEEKNO', 0, 53, true);
  const bymonth = list('BYMONTH', 1, 12);
  const bysetpos = list('BYSETPOS', 0, 366, true);
  const byweekday = has('BYDAY') ? parseByDay(get('BYDAY') ?? '', freq, byweekno !== null) : null;

  // RFC 5545 combinations rrule would otherwise read in its own way.
  if (bymonthday && freq === Frequency.WEEKLY) {
    throw invalid('BYMONTHDAY cannot be used with FREQ=WEEKLY');
  }
  if (byyearday && [Frequency.DAILY, Frequency.WEEKLY, Frequency.MONTHLY].includes(freq)) {
    throw invalid('BYYEARDAY needs FREQ=YEARLY or a sub-daily FREQ');
  }
  if (byweekno && freq !== Frequency.YEARLY) throw invalid('BYWEEKNO needs FREQ=YEARLY');
  const byParts = [...parts.keys()].filter((name) => name.startsWith('BY') && name !== 'BYSETPOS');
  if (bysetpos && byParts.length === 0) throw invalid('BYSETPOS needs another BY part');

  const start = new Date(Math.floor(toWall(timeZone, anchorMs) / MINUTE_MS) * MINUTE_MS);
  const options: RuleOptions = {
    freq,
    interval,
    dtstart: start,
    wkst: has('WKST') ? weekday('WKST', get('WKST') ?? '') : 0,
    count,
    until: until ? new Date(until.wall) : null,
    bysetpos,
    bymonth,
    bymonthday,
    byyearday,
    byweekno,
    byweekday,
    byhour: byhour ?? (freq < Frequency.HOURLY ? [start.getUTCHours()] : null),
    byminute: byminute ?? (freq < Frequency.MINUTELY ? [start.getUTCMinutes()] : null),
    bysecond: bysecond ?? [start.getUTCSeconds()],
  };
  // Day defaults rrule takes from DTSTART, so that moving DTSTART forward keeps the rule.
  if (!byweekno && !byyearday && !bymonthday && !byweekday) {
    if (freq === Frequency.YEARLY) {
      options.bymonth = bymonth ?? [start.getUTCMonth() + 1];
      options.bymonthday = [start.getUTCDate()];
    } else if (freq === Frequency.MONTHLY) {
      options.bymonthday = [start.getUTCDate()];
    } else if (freq === Frequency.WEEKLY) {
      options.byweekday = [(start.getUTCDay() + 6) % 7];
    }
  }
  assertReachableTimes(options, start);

  const nextWall = count === null ? rebasingNextWall(options) : enumeratedNextWall(options);
  return new WallClockSchedule('rrule', timeZone, anchorMs, nextWall, until?.instant);
}

function parseByDay(value: string, freq: Frequency, hasWeekNo: boolean): Weekday[] {
  return value.split(',').map((item) => {
    const match = /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(item);
    const index = match ? WEEKDAYS.indexOf(match[2]) : -1;
    if (!match || index < 0) throw invalid('BYDAY must list days like MO,TH or 1MO,-1FR');
    if (match[1] === undefined) return new Weekday(index);
    const n = Number(match[1]);
    if (n === 0 || Math.abs(n) > 53) {
      throw invalid('BYDAY ordinals must be from -53 to -1 or 1 to 53');
    }
    if ((freq !== Frequency.MONTHLY && freq !== Frequency.YEARLY) || hasWeekNo) {
      throw invalid(
        'BYDAY with an ordinal (like 1MO) needs FREQ=MONTHLY or FREQ=YEARLY without BYWEEKNO',
      );
    }
    return new Weekday(index, n);
  });
}

/**
 * rrule steps HOURLY/MINUTELY rules until the hour/minute matches, with no exit: an INTERVAL
 * that never lands on a BYHOUR/BYMINUTE value (FREQ=HOURLY;INTERVAL=2;BYHOUR=1 from an even
 * hour) would hang. Steps of INTERVAL reach exactly the times congruent to DTSTART modulo
 * gcd(INTERVAL, length of a day).
 */
function assertReachableTimes(options: RuleOptions, start: Date): void {
  const byhour = options.byhour as number[] | null;
  const byminute = options.byminute as number[] | null;
  if (options.freq === Frequency.HOURLY && byhour) {
    const step = gcd(options.interval, 24);
    if (!byhour.some((hour) => (hour - start.getUTCHours() + 24 * 24) % step === 0)) {
      throw neverFires();
    }
  }
  if (options.freq === Frequency.MINUTELY && (byhour || byminute)) {
    const step = gcd(options.interval, 1440);
    const origin = start.getUTCHours() * 60 + start.getUTCMinutes();
    const reachable = (byhour ?? range(0, 23)).some((hour) =>
      (byminute ?? range(0, 59)).some(
        (minute) => (hour * 60 + minute - origin + 1440) % step === 0,
      ),
    );
    if (!reachable) throw neverFires();
  }
}

/** An RRule whose queries give up (throw BUDGET_EXCEEDED) after WORK_BUDGET option reads. */
function budgetedRule(options: RuleOptions): { rule: RRule; reset: () => void } {
  const rule = new RRule(options, true);
  let remaining = WORK_BUDGET;
  rule.options = new Proxy(rule.options, {
    get(target, key, receiver) {
      if (--remaining < 0) throw BUDGET_EXCEEDED;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { rule, reset: () => (remaining = WORK_BUDGET) };
}

function withinBudget<T>(query: () => T, onExceeded: () => T): T {
  try {
    return query();
  } catch (error) {
    if (error === BUDGET_EXCEEDED) return onExceeded();
    throw error;
  }
}

/**
 * Without COUNT, occurrences do not depend on earlier ones, so each query restarts the rule at
 * the last period start (same alignment to DTSTART and INTERVAL) at or before the wanted time
 * instead of replaying every occurrence since creation. rrule only drops the part of that first
 * period before the new DTSTART, which is before the wanted time anyway.
 */
function rebasingNextWall(options: RuleOptions): (afterWall: number) => number | null {
  const origin = options.dtstart.getTime();
  let cached: { start: number; rule: RRule; reset: () => void } | null = null;
  // Every wall of the rule in (bufferFrom, last of buffer]: one rrule pass serves a few calls.
  let bufferFrom = Infinity;
  let buffer: number[] = [];
  let complete = false;
  return (afterWall) => {
    if (afterWall >= bufferFrom && (complete || afterWall < buffer[buffer.length - 1])) {
      return buffer.find((wall) => wall > afterWall) ?? null;
    }
    const start = rebase(options, origin, afterWall);
    if (cached?.start !== start) {
      cached = { start, ...budgetedRule({ ...options, dtstart: new Date(start) }) };
    }
    const { rule, reset } = cached;
    const walls: number[] = [];
    reset();
    // Out of budget counts as the end of the rule, as for a rule that matches nothing.
    complete = withinBudget(
      () => {
        rule.between(new Date(afterWall), new Date(MAX_TIME_MS), false, (date) => {
          walls.push(date.getTime());
          return walls.length < PREFETCH;
        });
        // Fewer than asked for means rrule ran out of occurrences.
        return walls.length < PREFETCH;
      },
      () => true,
    );
    bufferFrom = afterWall;
    buffer = walls;
    return walls.length > 0 ? walls[0] : null;
  };
}

function rebase(options: RuleOptions, origin: number, wall: number): number {
  if (!(wall > origin)) return origin;
  const { freq, interval } = options;
  const unit =
    freq === Frequency.WEEKLY
      ? 7 * DAY_MS
      : freq === Frequency.DAILY
        ? DAY_MS
        : freq === Frequency.HOURLY
          ? HOUR_MS
          : freq === Frequency.MINUTELY
            ? MINUTE_MS
            : 0;
  if (unit > 0) {
    return origin + Math.floor((wall - origin) / (unit * interval)) * interval * unit;
  }
  const from = new Date(origin);
  const to = new Date(wall);
  if (freq === Frequency.MONTHLY) {
    const months =
      (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth();
    const periods = Math.floor(months / interval);
    if (periods === 0) return origin;
    return wallFromFields(from.getUTCFullYear(), from.getUTCMonth() + 1 + periods * interval, 1);
  }
  const periods = Math.floor((to.getUTCFullYear() - from.getUTCFullYear()) / interval);
  return periods === 0 ? origin : wallFromFields(from.getUTCFullYear() + periods * interval, 1, 1);
}

/** With COUNT, occurrences depend on all earlier ones: list them once, then binary-search. */
function enumeratedNextWall(options: RuleOptions): (afterWall: number) => number | null {
  const { rule } = budgetedRule(options);
  const walls = withinBudget(
    () => rule.all().map((date) => date.getTime()),
    () => {
      throw invalid('COUNT is too large to evaluate; use a smaller COUNT or UNTIL');
    },
  );
  return (afterWall) => {
    let low = 0;
    let high = walls.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (walls[mid] > afterWall) high = mid;
      else low = mid + 1;
    }
    return low < walls.length ? walls[low] : null;
  };
}
