import { ToolkitTesting } from '../builtin-toolkit.testing';

export const testing: ToolkitTesting = {
  worstInputs: {
    'Time.CurrentTime': () => ({ time_zone: 'America/Argentina/ComodRivadavia' }),
    'Time.ConvertTimeZone': () => ({
      datetime: '2025-03-30T02:30:00.000',
      from_time_zone: 'Europe/Madrid',
      to_time_zone: 'Pacific/Chatham',
    }),
  },
};
