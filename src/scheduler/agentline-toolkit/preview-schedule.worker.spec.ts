import { ToolExecutionContext, ToolExecutionError } from '../../tools/execution/tool-executor';
import { PREVIEW_SCHEDULE_TASK, WORKER_TOOL_EXECUTORS } from './preview-schedule.worker';

const preview = WORKER_TOOL_EXECUTORS[PREVIEW_SCHEDULE_TASK];
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

  it('reports a bad frequency or zone as the HTTP preview does, for the model to read', async () => {
    const bad = preview.execute(
      { frequency: 'every so often', time_zone: 'UTC', count: 2, from: FROM },
      context,
    );
    await expect(bad).rejects.toBeInstanceOf(ToolExecutionError);
    await expect(bad).rejects.toThrow(/^The request is not valid\. frequency: /);
    await expect(
      preview.execute(
        { frequency: 'daily', time_zone: 'Mars/Olympus', count: 2, from: FROM },
        context,
      ),
    ).rejects.toThrow(/^The request is not valid\. time_zone: /);
  });
});
