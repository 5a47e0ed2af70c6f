import { ToolExecutionContext } from '../../tools/execution/tool-executor';
import { SCHEDULE_PREVIEW_TASK, WORKER_TOOL_EXECUTORS } from './schedule-preview.worker';

const preview = WORKER_TOOL_EXECUTORS[SCHEDULE_PREVIEW_TASK];
const context = {} as ToolExecutionContext;
const FROM = Date.UTC(2025, 2, 28, 9, 0, 0); // 10:00 in Madrid, two days before DST starts

describe('the PreviewSchedule worker executor', () => {
  it('expands the schedule from the given instant, with local times', async () => {
    await expect(
      preview.execute(
        { frequency: 'daily', time_zone: 'Europe/Madrid', count: 2, from: FROM },
        context,
      ),
    ).resolves.toEqual({
      occurrences: [Date.UTC(2025, 2, 29, 9, 0, 0), Date.UTC(2025, 2, 30, 8, 0, 0)],
      local_times: ['2025-03-29T10:00:00+01:00', '2025-03-30T10:00:00+02:00'],
    });
  });

  it('answers a bad frequency or zone with the field error, for each caller to word', async () => {
    await expect(
      preview.execute(
        { frequency: 'every so often', time_zone: 'UTC', count: 2, from: FROM },
        context,
      ),
    ).resolves.toEqual({ error: { field: 'frequency', message: expect.any(String) } });
    await expect(
      preview.execute(
        { frequency: 'daily', time_zone: 'Mars/Olympus', count: 2, from: FROM },
        context,
      ),
    ).resolves.toEqual({ error: { field: 'time_zone', message: expect.any(String) } });
  });
});
