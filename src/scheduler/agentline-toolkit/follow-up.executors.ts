import { isUuid } from '../../common/ids';
import { ToolExecutionError, ToolExecutor, ToolInput } from '../../tools/execution/tool-executor';
import {
  CreateFollowUpDto,
  ListFollowUpsQueryDto,
  SchedulePreviewQueryDto,
} from '../dto/follow-up.dto';
import { toFollowUpResponse } from '../follow-up.mapper';
import { FollowUpsService } from '../follow-ups.service';
import { toWall } from '../../common/zoned-time';
import { asToolError, validDto } from './tool-errors';

const DEFAULT_TIME_ZONE = 'UTC';

/**
 * The follow-up tools of the Agentline toolkit. Each acts within the tool attachment's
 * organization and agent: another agent's follow-ups do not exist for it.
 */
export function followUpExecutors(followUps: FollowUpsService): Record<string, ToolExecutor> {
  return {
    /** The body of POST /v1/scheduler/follow-up/whatsapp, its agent_id being the tool's agent. */
    'Agentline.ScheduleFollowUp': {
      async execute(input, context) {
        const dto = await validDto(CreateFollowUpDto, { ...input, agent_id: context.agentId });
        // Created in the name of whoever attached the tool: that is who gave the agent this power.
        const principal = {
          organizationId: context.organizationId,
          subject: context.toolCreatedBy,
        };
        const followUp = await asToolError(() => followUps.createWhatsappFollowUp(principal, dto));
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
        return { ...page, items: page.items.map(toFollowUpResponse) };
      },
    },
    'Agentline.CancelFollowUp': {
      async execute(input, context) {
        const id = stringInput(input, 'follow_up_id');
        const followUp = await asToolError(() => followUps.findOne(context.organizationId, id));
        if (followUp.agentId !== context.agentId) {
          throw new ToolExecutionError('Follow-up was not found.');
        }
        await asToolError(() => followUps.remove(context.organizationId, followUp.id));
        return { follow_up_id: followUp.id, title: followUp.title, cancelled: true };
      },
    },
    'Agentline.PreviewSchedule': {
      async execute(input) {
        const query = await validDto(SchedulePreviewQueryDto, { ...input });
        const occurrences = await asToolError(() => Promise.resolve(followUps.preview(query)));
        const zone = query.time_zone ?? DEFAULT_TIME_ZONE;
        return { occurrences, local_times: occurrences.map((at) => localTime(zone, at)) };
      },
    },
  };
}

function stringInput(input: ToolInput, name: string): string {
  const value = input[name];
  if (typeof value !== 'string') throw new ToolExecutionError(`${name} must be a string.`);
  return value;
}

/** `2025-03-14T10:00:00+01:00`: what a model can read back to a client. */
function localTime(timeZone: string, instant: number): string {
  const offsetMinutes = Math.round((toWall(timeZone, instant) - instant) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const pad = (n: number) => String(n).padStart(2, '0');
  const abs = Math.abs(offsetMinutes);
  const wall = new Date(toWall(timeZone, instant)).toISOString().slice(0, 19);
  return `${wall}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
