import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ChannelsService } from '../channels/channels.service';
import { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { FieldError, ProblemException, validationFailed } from '../common/http/problem';
import { uuidv7 } from '../common/ids';
import { CreateFollowUpDto, SchedulePreviewQueryDto } from './dto/follow-up.dto';
import { FollowUpEntity } from './entities/follow-up.entity';
import { normalizePhoneNumbers } from './phone-numbers';
import { parseSchedule, Schedule, ScheduleError } from './schedule/schedule.parser';

const DEFAULT_TIME_ZONE = 'UTC';
const DEFAULT_PREVIEW_COUNT = 10;

const channelNotUsable = (detail: string) =>
  new ProblemException(422, 'channel_not_usable', detail);

/** Parses a frequency in a zone, turning grammar errors into field errors. */
function scheduleOrErrors(
  frequency: string,
  timeZone: string,
  anchorMs: number,
): { schedule?: Schedule; errors: FieldError[] } {
  try {
    return { schedule: parseSchedule(frequency, timeZone, anchorMs), errors: [] };
  } catch (error) {
    if (error instanceof ScheduleError)
      return { errors: [{ field: error.field, message: error.message }] };
    throw error;
  }
}

@Injectable()
export class FollowUpsService {
  constructor(
    @InjectRepository(FollowUpEntity) private readonly followUps: Repository<FollowUpEntity>,
    private readonly channels: ChannelsService,
    private readonly clock: Clock,
  ) {}

  async createWhatsappFollowUp(
    principal: Principal,
    dto: CreateFollowUpDto,
  ): Promise<FollowUpEntity> {
    const now = this.clock.now();
    const timeZone = dto.time_zone ?? DEFAULT_TIME_ZONE;
    const phones = normalizePhoneNumbers(dto.client_phone_numbers);
    const { schedule, errors: scheduleErrors } = scheduleOrErrors(dto.frequency, timeZone, now);
    const errors = [...phones.errors, ...scheduleErrors];
    if (errors.length > 0 || !schedule) throw validationFailed(errors);

    await this.assertUsableWhatsappChannel(principal.organizationId, dto.channel_id, dto.agent_id);

    const firstRun = schedule.firstRun();
    const followUp = this.followUps.create({
      id: uuidv7(now),
      organizationId: principal.organizationId,
      agentId: dto.agent_id,
      channelId: dto.channel_id,
      channelType: 'Whatsapp',
      clientPhoneNumbers: phones.numbers,
      frequency: dto.frequency.trim(),
      timeZone,
      prompt: dto.prompt,
      title: dto.title,
      description: dto.description ?? null,
      status: firstRun === null ? 'completed' : 'active',
      anchorAt: new Date(now),
      nextRunAt: firstRun === null ? null : new Date(firstRun),
      createdBy: principal.subject,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });
    await this.followUps.insert(followUp);
    return followUp;
  }

  preview(query: SchedulePreviewQueryDto): number[] {
    const from = query.from ?? this.clock.now();
    const { schedule, errors } = scheduleOrErrors(
      query.frequency,
      query.time_zone ?? DEFAULT_TIME_ZONE,
      from,
    );
    if (!schedule) throw validationFailed(errors);
    return schedule.occurrences(from, query.count ?? DEFAULT_PREVIEW_COUNT);
  }

  /** The channel must be the organization's, a WhatsApp channel, of this agent, and active: else 422. */
  private async assertUsableWhatsappChannel(
    organizationId: string,
    channelId: string,
    agentId: string,
  ) {
    const channel = await this.channels.findWhatsappChannel(organizationId, channelId);
    if (!channel) {
      const messanger = await this.channels.findMessangerChannel(organizationId, channelId);
      throw channelNotUsable(
        messanger
          ? `Channel ${channelId} is a Messanger channel; WhatsApp follow-ups need a WhatsApp channel.`
          : `No WhatsApp channel ${channelId} exists in this organization.`,
      );
    }
    if (channel.agentId !== agentId) {
      throw channelNotUsable(`Channel ${channelId} belongs to another agent, not ${agentId}.`);
    }
    if (channel.status !== 'active') {
      throw channelNotUsable(
        `Channel ${channelId} is inactive; update its access_token to reactivate it.`,
      );
    }
  }
}
