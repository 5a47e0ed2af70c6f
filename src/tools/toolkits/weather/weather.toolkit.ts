import { IsOptional, IsUrl } from 'class-validator';
import { baseUrl, defineToolkit } from '../builtin-toolkit';
import { openWeatherExecutors } from './openweather.executors';
import data from './toolkit.json';

export class WeatherEnvironment {
  /** OpenWeather's base URL; tests point it at a fake. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  OPENWEATHER_API_URL: string = 'https://api.openweathermap.org';
}

export const weatherToolkit = defineToolkit({
  name: 'Weather',
  source: { dir: __dirname, file: 'toolkit.json', data },
  environment: WeatherEnvironment,
  config: (vars) => baseUrl(vars.OPENWEATHER_API_URL),
  executors: (url, { http }) => openWeatherExecutors(http, url),
});
