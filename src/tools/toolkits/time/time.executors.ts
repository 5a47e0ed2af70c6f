import { Clock } from '../../../common/clock';
import { ToolExecutionError, ToolExecutor } from '../../execution/tool-executor';
import { optionalString, requiredString } from '../tool-input.readers';
import { knownTimeZone, describeInstant, instantAt } from './zone-offsets';

const LOCAL_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;
const WITH_OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/i;

function timeZone(input: Parameters<ToolExecutor['execute']>[0], name: string, fallback?: string) {
  const raw = optionalString(input, name) ?? fallback;
  if (raw === undefined) throw new ToolExecutionError(`${name} is required.`);
  const zone = knownTimeZone(raw.trim());
  if (!zone) {
    throw new ToolExecutionError(
      `${name} "${raw}" is not an IANA time zone such as Europe/Lisbon or America/New_York.`,
    );
  }
  return zone;
}

/** Time.CurrentTime: `{time_zone?}` -> `{datetime, time_zone, utc_offset, day_of_week, unix_timestamp}`. */
export function currentTime(clock: Clock): ToolExecutor {
  return {
    execute(input) {
      const zone = timeZone(input, 'time_zone', 'UTC');
      const now = clock.now();
      const { datetime, utcOffset, dayOfWeek } = describeInstant(zone, now);
      return Promise.resolve({
        datetime,
        time_zone: zone,
        utc_offset: utcOffset,
        day_of_week: dayOfWeek,
        unix_timestamp: Math.floor(now / 1000),
      });
    },
  };
}

/**
 * Time.ConvertTimeZone: `{datetime, from_time_zone, to_time_zone}` -> `{datetime, time_zone,
 * utc_offset}`. A local time skipped by a DST change moves forward by the gap; a repeated one is
 * read as its first occurrence.
 */
export const convertTimeZone: ToolExecutor = {
  execute(input) {
    const raw = requiredString(input, 'datetime').trim();
    const from = timeZone(input, 'from_time_zone');
    const to = timeZone(input, 'to_time_zone');
    const instant = instantAt(from, parseLocalDateTime(raw));
    const { datetime, utcOffset } = describeInstant(to, instant);
    return Promise.resolve({ datetime, time_zone: to, utc_offset: utcOffset });
  },
};

/** `2025-03-14T15:30[:00[.000]]` (or a date alone, meaning midnight) as a wall value. */
function parseLocalDateTime(raw: string): number {
  if (WITH_OFFSET.test(raw) && !LOCAL_DATE_TIME.test(raw)) {
    throw new ToolExecutionError(
      `datetime "${raw}" carries a UTC offset; give the local time alone, e.g. 2025-03-14T15:30:00, and its zone in from_time_zone.`,
    );
  }
  const match = LOCAL_DATE_TIME.exec(raw);
  if (!match) {
    throw new ToolExecutionError(
      `datetime "${raw}" is not an ISO 8601 local date-time such as 2025-03-14T15:30:00.`,
    );
  }
  const [year, month, day, hour, minute, second] = match
    .slice(1, 7)
    .map((part) => (part === undefined ? 0 : Number(part)));
  const millisecond = match[7] ? Number(match[7].padEnd(3, '0')) : 0;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  const check = new Date(wall);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    throw new ToolExecutionError(`datetime "${raw}" is not a real date and time.`);
  }
  return wall;
}
