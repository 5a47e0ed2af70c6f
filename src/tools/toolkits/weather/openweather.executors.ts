import {
  ToolExecutionContext,
  ToolExecutionError,
  ToolExecutor,
  ToolInput,
} from '../../execution/tool-executor';
import { requireApiKey } from '../provider-credentials';
import {
  field,
  numberOrNull,
  ProviderHttpClient,
  providerError,
  ProviderResponse,
  records,
  stringOrNull,
} from '../provider-http.client';
import {
  integerInRange,
  nonBlankString,
  optionalNumber,
  optionalString,
} from '../tool-input.readers';

const PROVIDER = 'OpenWeather';

/**
 * Weather.* over OpenWeather's 2.5 API (`/data/2.5/weather`, `/data/2.5/forecast`). The API key
 * goes in the `appid` query parameter, as OpenWeather requires.
 */
export function openWeatherExecutors(
  http: ProviderHttpClient,
  baseUrl: string,
): Record<string, ToolExecutor> {
  const get = async (
    path: readonly string[],
    query: Record<string, string | number>,
    context: ToolExecutionContext,
  ): Promise<unknown> => {
    const apiKey = requireApiKey(context, PROVIDER);
    const response = await http.request(PROVIDER, {
      method: 'GET',
      baseUrl,
      path,
      query: { ...query, appid: apiKey },
      signal: context.signal,
      secrets: [apiKey],
    });
    return checked(response, [apiKey]);
  };

  return {
    'Weather.GetCurrentWeather': {
      async execute(input, context) {
        const units = optionalString(input, 'units') ?? 'metric';
        const body = await get(['data', '2.5', 'weather'], { ...place(input), units }, context);
        return {
          location: locationName(field(body, 'name'), field(body, 'sys', 'country')),
          observed_at: isoFromSeconds(field(body, 'dt')),
          temperature: numberOrNull(field(body, 'main', 'temp')),
          feels_like: numberOrNull(field(body, 'main', 'feels_like')),
          humidity: numberOrNull(field(body, 'main', 'humidity')),
          pressure: numberOrNull(field(body, 'main', 'pressure')),
          wind_speed: numberOrNull(field(body, 'wind', 'speed')),
          wind_direction: numberOrNull(field(body, 'wind', 'deg')),
          clouds: numberOrNull(field(body, 'clouds', 'all')),
          condition: stringOrNull(field(records(field(body, 'weather'))[0], 'description')),
          units,
        };
      },
    },
    'Weather.GetForecast': {
      async execute(input, context) {
        const location = nonBlankString(input, 'location');
        const days = integerInRange(input, 'days', { min: 1, max: 5, fallback: 3 });
        const units = optionalString(input, 'units') ?? 'metric';
        const body = await get(['data', '2.5', 'forecast'], { q: location, units }, context);
        return {
          location: locationName(field(body, 'city', 'name'), field(body, 'city', 'country')),
          units,
          days: dailySummaries(body, days),
        };
      },
    },
  };
}

/** `q` for a place name, or `lat`/`lon`: exactly one of the two ways. */
function place(input: ToolInput): Record<string, string | number> {
  const location = optionalString(input, 'location')?.trim();
  const latitude = optionalNumber(input, 'latitude');
  const longitude = optionalNumber(input, 'longitude');
  if (location) {
    if (latitude !== undefined || longitude !== undefined) {
      throw new ToolExecutionError('Give either location or latitude and longitude, not both.');
    }
    return { q: location };
  }
  if (latitude === undefined || longitude === undefined) {
    throw new ToolExecutionError('Give location, or both latitude and longitude.');
  }
  if (latitude < -90 || latitude > 90) {
    throw new ToolExecutionError(`latitude must be between -90 and 90, got ${latitude}.`);
  }
  if (longitude < -180 || longitude > 180) {
    throw new ToolExecutionError(`longitude must be between -180 and 180, got ${longitude}.`);
  }
  return { lat: latitude, lon: longitude };
}

/** OpenWeather errors are `{cod, message}`, e.g. `{"cod": "404", "message": "city not found"}`. */
function checked(response: ProviderResponse, secrets: readonly string[]): unknown {
  if (response.status >= 200 && response.status < 300) return response.body;
  const message = stringOrNull(field(response.body, 'message')) ?? undefined;
  throw providerError(PROVIDER, response.status, message, secrets);
}

function locationName(name: unknown, country: unknown): string | null {
  if (typeof name !== 'string' || name === '') return null;
  return typeof country === 'string' && country ? `${name}, ${country}` : name;
}

function isoFromSeconds(value: unknown): string | null {
  return typeof value === 'number' ? new Date(value * 1000).toISOString() : null;
}

type DaySummary = {
  date: string;
  temp_min: number | null;
  temp_max: number | null;
  precipitation_probability: number | null;
  condition: string | null;
};

/**
 * The 3-hourly forecast folded into local days (the city's UTC offset): lowest and highest
 * temperature, highest precipitation probability in percent, the most frequent condition.
 */
function dailySummaries(body: unknown, days: number): DaySummary[] {
  const offsetSeconds = numberOrNull(field(body, 'city', 'timezone')) ?? 0;
  const byDate = new Map<
    string,
    { mins: number[]; maxes: number[]; pops: number[]; conditions: string[] }
  >();
  for (const entry of records(field(body, 'list'))) {
    const dt = numberOrNull(entry.dt);
    if (dt === null) continue;
    const date = new Date((dt + offsetSeconds) * 1000).toISOString().slice(0, 10);
    let day = byDate.get(date);
    if (!day) {
      if (byDate.size === days) break;
      day = { mins: [], maxes: [], pops: [], conditions: [] };
      byDate.set(date, day);
    }
    const min = numberOrNull(field(entry, 'main', 'temp_min'));
    const max = numberOrNull(field(entry, 'main', 'temp_max'));
    const pop = numberOrNull(entry.pop);
    const condition = stringOrNull(field(records(entry.weather)[0], 'description'));
    if (min !== null) day.mins.push(min);
    if (max !== null) day.maxes.push(max);
    if (pop !== null) day.pops.push(pop);
    if (condition !== null) day.conditions.push(condition);
  }
  return [...byDate].map(([date, day]): DaySummary => ({
    date,
    temp_min: day.mins.length ? Math.min(...day.mins) : null,
    temp_max: day.maxes.length ? Math.max(...day.maxes) : null,
    precipitation_probability: day.pops.length ? Math.round(Math.max(...day.pops) * 100) : null,
    condition: mostFrequent(day.conditions),
  }));
}

function mostFrequent(values: readonly string[]): string | null {
  const counts = new Map<string, number>();
  let best: string | null = null;
  for (const value of values) {
    const count = (counts.get(value) ?? 0) + 1;
    counts.set(value, count);
    if (best === null || count > (counts.get(best) ?? 0)) best = value;
  }
  return best;
}
