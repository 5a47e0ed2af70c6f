import { ToolkitTesting } from '../builtin-toolkit.testing';

export const testing: ToolkitTesting = {
  variablePrefix: 'OPENWEATHER_',
  provider: { urlVariable: 'OPENWEATHER_API_URL' },
  worstInputs: {
    'Weather.GetCurrentWeather': () => ({ location: 'Lisbon' }),
    'Weather.GetForecast': () => ({ location: 'Lisbon', days: 5 }),
  },
};
