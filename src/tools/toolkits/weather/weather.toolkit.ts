import { defineToolkit, providerUrl } from '../builtin-toolkit';
import { openWeatherExecutors } from './openweather.executors';
import data from './toolkit.json';

export const weatherToolkit = defineToolkit({
  name: 'Weather',
  source: { dir: __dirname, file: 'toolkit.json', data },
  // OpenWeather; OPENWEATHER_API_URL points it elsewhere (tests: a fake).
  ...providerUrl('OPENWEATHER_API_URL', 'https://api.openweathermap.org', 'OpenWeather'),
  executors: (url, { http }) => openWeatherExecutors(http, url),
});
