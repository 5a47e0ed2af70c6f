import { Server } from 'node:http';
import { FakeHttpApi, FakeHttpReply, RecordedRequest } from './fake-http-api';

/** Lisbon on 2025-03-14 at 14:00 UTC, as OpenWeather's /data/2.5/weather answers (metric). */
export const LISBON_WEATHER = {
  coord: { lon: -9.1333, lat: 38.7167 },
  weather: [{ id: 803, main: 'Clouds', description: 'broken clouds', icon: '04d' }],
  base: 'stations',
  main: {
    temp: 17.2,
    feels_like: 16.8,
    temp_min: 16.1,
    temp_max: 18.3,
    pressure: 1016,
    humidity: 72,
  },
  visibility: 10000,
  wind: { speed: 4.6, deg: 320 },
  clouds: { all: 75 },
  dt: 1741960800,
  sys: { type: 2, id: 2012277, country: 'PT', sunrise: 1741935120, sunset: 1741977960 },
  timezone: 0,
  id: 2267057,
  name: 'Lisbon',
  cod: 200,
};

/**
 * OpenWeather's 2.5 API as far as the Weather toolkit uses it: `/data/2.5/weather` and
 * `/data/2.5/forecast`, the key in `appid`, OpenWeather's `{cod, message}` errors.
 */
export class FakeOpenWeatherApi extends FakeHttpApi {
  static start(validKeys: readonly string[]): Promise<FakeOpenWeatherApi> {
    return FakeHttpApi.listen(
      (server: Server, url: string) =>
        new FakeOpenWeatherApi(server, url, (request) => answer(request, validKeys)),
    );
  }
}

function answer(request: RecordedRequest, validKeys: readonly string[]): FakeHttpReply {
  if (!validKeys.includes(request.query.appid ?? '')) {
    return {
      status: 401,
      body: {
        cod: 401,
        message:
          'Invalid API key. Please see https://openweathermap.org/faq#error401 for more info.',
      },
    };
  }
  const knows =
    request.query.q?.toLowerCase().startsWith('lisbon') || request.query.lat !== undefined;
  if (!knows) return { status: 404, body: { cod: '404', message: 'city not found' } };
  if (request.path === '/data/2.5/weather') return { status: 200, body: LISBON_WEATHER };
  if (request.path === '/data/2.5/forecast') {
    // Three-hourly entries over two days; day one is mild and dry, day two cooler and rainy.
    const base = Date.UTC(2025, 2, 14, 0, 0, 0) / 1000;
    const list = Array.from({ length: 16 }, (_, i) => ({
      dt: base + i * 3 * 3600,
      main: {
        temp: 15 + (i % 8),
        temp_min: 12 + (i % 8) - (i >= 8 ? 3 : 0),
        temp_max: 14 + (i % 8) - (i >= 8 ? 3 : 0),
      },
      weather: [{ description: i >= 8 ? 'light rain' : i === 0 ? 'clear sky' : 'few clouds' }],
      pop: i >= 8 ? 0.4 + (i % 8) * 0.05 : 0,
    }));
    return {
      status: 200,
      body: {
        cod: '200',
        cnt: list.length,
        list,
        city: { name: 'Lisbon', country: 'PT', timezone: 0 },
      },
    };
  }
  return { status: 404, body: { cod: '404', message: 'Internal error' } };
}
