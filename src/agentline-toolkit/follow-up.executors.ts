import { Clock } from '../common/clock';
import { followUpToolBody } from './follow-up-template.tool-input';
import { isUuid } from '../common/ids';
import {
  CreateFollowUpDto,
  FollowUpsService,
  ListFollowUpsQueryDto,
  SchedulePreviewQueryDto,
  SchedulePreviewTimeout,
  SchedulerWorkers,
  toFollowUpResponse,
} from '../scheduler';
import {
  asToolError,
  asToolFailure,
  requiredString,
  ToolExecutionError,
  ToolExecutor,
  validDto,
} from '../tools';

const DEFAULT_TIME_ZONE = 'UTC';
const DEFAULT_PREVIEW_COUNT = 10;

/**
 * The follow-up tools of the Agentline toolkit. Each acts within the tool attachment's
 * organization and agent: another agent's follow-ups do not exist for it.
 */
export function followUpExecutors(
  followUps: FollowUpsService,
  clock: Clock,
  workers: SchedulerWorkers,
): Record<string, ToolExecutor> {
  return {
    /**
     * The body of POST /v1/scheduler/follow-up/whatsapp, its agent_id being the tool's agent (the
     * flat template parameters become its `template`, see follow-up-template.tool-input.ts).
     */
    'Agentline.ScheduleFollowUp': {
      async execute(input, context) {
        const dto = await validDto(CreateFollowUpDto, {
          ...followUpToolBody(input),
          agent_id: context.agentId,
        });
        // Created in the name of whoever attached the tool: that is who gave the agent this power.
        const principal = {
          organizationId: context.organizationId,
          subject: context.toolCreatedBy,
        };
        const followUp = await asToolError(() =>
          followUps.createFollowUp(principal, 'whatsapp', dto),
        );
        return toFollowUpResponse(followUp);
      },
    },
    'Agentline.ListFollowUps': {
      async execute(input, context) {
        const channelId = input.channel_id;
        if (typeof channelId === 'string' && !isUuid(channelId)) {
          throw new ToolExecutionError(`channel_id "${channelId}" is not a channel id.`);
        }
        const query = await validDto(ListFollowUpsQueryDto, {
          ...input,
          agent_id: context.agentId,
        });
        const page = await followUps.list(context.organizationId, query);
        return {
          ...page,
          items: await followUps.responses(context.organizationId, page.items),
        };
      },
    },
    'Agentline.CancelFollowUp': {
      async execute(input, context) {
        const id = requiredString(input, 'follow_up_id');
        const followUp = await asToolError(() => followUps.findOne(context.organizationId, id));
        if (followUp.agentId !== context.agentId) {
          throw new ToolExecutionError('Follow-up was not found.');
        }
        await asToolError(() => followUps.remove(context.organizationId, followUp.id));
        return { follow_up_id: followUp.id, title: followUp.title, cancelled: true };
      },
    },
    /** As GET /v1/scheduler/preview, in the same worker thread. */
    'Agentline.PreviewSchedule': {
      async execute(input, context) {
        const query = await validDto(SchedulePreviewQueryDto, { ...input });
        const task = {
          frequency: query.frequency,
          time_zone: query.time_zone ?? DEFAULT_TIME_ZONE,
          count: query.count ?? DEFAULT_PREVIEW_COUNT,
          from: query.from ?? clock.now(),
        };
        const result = await workers
          .preview(context.organizationId, task, context.signal)
          .catch((error: unknown) => {
            // A full queue or a thread out of memory is the model's to read, as for any tool.
            if (!(error instanceof SchedulePreviewTimeout)) throw asToolFailure(error);
            throw new ToolExecutionError(
              `Expanding this schedule ${error.message}; ask for fewer.`,
            );
          });
        if ('error' in result) {
          throw new ToolExecutionError(
            `The request is not valid. ${result.error.field}: ${result.error.message}`,
          );
        }
        return result;
      },
    },
  };
}
