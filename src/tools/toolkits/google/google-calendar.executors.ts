import { Clock } from '../../../common/clock';
import {
  ToolExecutionContext,
  ToolExecutionError,
  ToolExecutor,
} from '../../execution/tool-executor';
import { field, records, stringOrNull } from '../provider-http.client';
import {
  integerInRange,
  nonBlankString,
  optionalString,
  optionalStrings,
} from '../tool-input.readers';
import { GoogleCall } from './google-api';

const WEEK_MS = 7 * 86_400_000;
const HAS_OFFSET = /(?:Z|[+-]\d{2}:\d{2})$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?$/i;

/** Google.CreateCalendarEvent and Google.ListCalendarEvents over the Calendar v3 API. */
export function googleCalendarExecutors(
  call: GoogleCall,
  clock: Clock,
): Record<string, ToolExecutor> {
  const eventsPath = (calendarId: string) => ['calendar', 'v3', 'calendars', calendarId, 'events'];

  /**
   * Calendar wants either an offset in dateTime or a timeZone; with neither, use the calendar's.
   * It is read from events.list (whose answer carries the calendar's `timeZone`), not calendars.get:
   * the tool's scope, calendar.events, does not allow calendars.get (Google answers 403).
   */
  const zoneFor = async (
    calendarId: string,
    start: string,
    end: string,
    given: string | undefined,
    context: ToolExecutionContext,
  ): Promise<string | undefined> => {
    if (given) return given;
    if (HAS_OFFSET.test(start) && HAS_OFFSET.test(end)) return undefined;
    const events = await call(
      {
        method: 'GET',
        path: eventsPath(calendarId),
        query: { maxResults: 1, fields: 'timeZone' },
      },
      context,
    );
    return stringOrNull(field(events, 'timeZone')) ?? 'UTC';
  };

  return {
    'Google.CreateCalendarEvent': {
      async execute(input, context) {
        const calendarId = optionalString(input, 'calendar_id') ?? 'primary';
        const start = dateTime(input, 'start_datetime');
        const end = dateTime(input, 'end_datetime');
        const timeZone = await zoneFor(
          calendarId,
          start,
          end,
          optionalString(input, 'time_zone'),
          context,
        );
        const event = await call(
          {
            method: 'POST',
            path: eventsPath(calendarId),
            query: { sendUpdates: optionalString(input, 'send_updates') ?? 'all' },
            json: {
              summary: nonBlankString(input, 'summary'),
              description: optionalString(input, 'description'),
              location: optionalString(input, 'location'),
              start: { dateTime: start, timeZone },
              end: { dateTime: end, timeZone },
              attendees: optionalStrings(input, 'attendee_emails')?.map((email) => ({
                email: email.trim(),
              })),
            },
          },
          context,
        );
        return eventSummary(event);
      },
    },
    'Google.ListCalendarEvents': {
      async execute(input, context) {
        const calendarId = optionalString(input, 'calendar_id') ?? 'primary';
        const from = instant(input, 'min_end_datetime') ?? clock.now();
        const until = instant(input, 'max_start_datetime') ?? from + WEEK_MS;
        if (until <= from) {
          throw new ToolExecutionError('max_start_datetime must be after min_end_datetime.');
        }
        const listed = await call(
          {
            method: 'GET',
            path: eventsPath(calendarId),
            // timeMin bounds an event's end and timeMax its start, exactly as the inputs mean.
            query: {
              timeMin: new Date(from).toISOString(),
              timeMax: new Date(until).toISOString(),
              singleEvents: true,
              orderBy: 'startTime',
              maxResults: integerInRange(input, 'max_results', { min: 1, max: 250, fallback: 25 }),
            },
          },
          context,
        );
        return { events: records(field(listed, 'items')).map(eventSummary) };
      },
    },
  };
}

function dateTime(input: Parameters<ToolExecutor['execute']>[0], name: string): string {
  const value = nonBlankString(input, name).trim();
  if (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))) {
    throw new ToolExecutionError(
      `${name} "${value}" is not an ISO 8601 date-time such as 2025-03-14T15:00:00.`,
    );
  }
  return value;
}

/** A bound of the listing; without an offset it is read as UTC. */
function instant(input: Parameters<ToolExecutor['execute']>[0], name: string): number | undefined {
  if (optionalString(input, name) === undefined) return undefined;
  const value = dateTime(input, name);
  return Date.parse(HAS_OFFSET.test(value) ? value : `${value}Z`);
}

function eventSummary(event: unknown) {
  const when = (key: 'start' | 'end') =>
    stringOrNull(field(event, key, 'dateTime')) ?? stringOrNull(field(event, key, 'date'));
  return {
    id: stringOrNull(field(event, 'id')),
    summary: stringOrNull(field(event, 'summary')),
    start: when('start'),
    end: when('end'),
    location: stringOrNull(field(event, 'location')),
    attendees: records(field(event, 'attendees'))
      .map((attendee) => stringOrNull(attendee.email))
      .filter((email): email is string => email !== null),
    html_link: stringOrNull(field(event, 'htmlLink')),
  };
}
