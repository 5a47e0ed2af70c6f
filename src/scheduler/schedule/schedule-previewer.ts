import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ToolWorkerPool } from '../../tools/execution/worker-pool/tool-worker.pool';
import {
  SCHEDULE_PREVIEW_MODULE,
  SCHEDULE_PREVIEW_TASK,
  SchedulePreviewResult,
  SchedulePreviewTask,
} from './schedule-preview.worker';

/** A preview that did not finish within the time-out (the thread was stopped). */
export class SchedulePreviewTimeout extends Error {}

/**
 * Expands schedules off the event loop: a rare rule (29 February, a 13th that is a Friday) walks
 * years per occurrence, and 500 of them held the loop for over a second. One thread of its own,
 * started on the first preview and stopped at TOOL_EXECUTION_TIMEOUT_MS like a tool.
 */
@Injectable()
export class SchedulePreviewer implements OnApplicationShutdown {
  private readonly workers = new ToolWorkerPool(1, [SCHEDULE_PREVIEW_MODULE]);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onApplicationShutdown(): Promise<void> {
    return this.workers.close();
  }

  /** Stops at the time-out, or earlier when `signal` (a tool execution's own) aborts. */
  async preview(task: SchedulePreviewTask, signal?: AbortSignal): Promise<SchedulePreviewResult> {
    const timeoutMs = this.config.toolExecution.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const context = {
      organizationId: '',
      agentId: '',
      toolId: '',
      toolCreatedBy: '',
      executedBy: '',
      timeoutMs,
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    };
    try {
      return (await this.workers.run(
        SCHEDULE_PREVIEW_TASK,
        { ...task },
        context,
      )) as SchedulePreviewResult;
    } catch (error) {
      if (deadline.aborted) throw new SchedulePreviewTimeout(`took over ${timeoutMs} ms`);
      throw error;
    }
  }
}
