import { IdempotencyKeys, IdempotentRequest } from '../common/idempotency/idempotency-keys';
import { DeliveryStatus } from './entities/delivery.entity';
import type { FollowUpDeliveryCountsDto as FollowUpDeliveryCounts } from './dto/follow-up.dto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, FindOptionsOrder, FindOptionsWhere, IsNull, Repository } from 'typeorm';
import {
  ChannelKinds,
  ChannelMessageSender,
  describeUnusable,
  ListDeliveriesQueryDto,
  MAX_LISTED_ATTEMPTS,
  MessageTemplate,
  TemplateSendChecks,
  templateValues,
  toMessageTemplate,
} from '../channels';
import type { ChannelKind } from '../channels';
import { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { FieldError, notFound, ProblemException, validationFailed } from '../common/http/problem';
import { isUuid, uuidv7 } from '../common/ids';
import { byteBoundedPage } from '../common/http/byte-bounded-page';
import { DEFAULT_PAGE_SIZE } from '../common/http/pagination.dto';
import {
  CreateFollowUpDto,
  FollowUpDto,
  ListFollowUpsQueryDto,
  SchedulePreviewQueryDto,
} from './dto/follow-up.dto';
import { DeliveryEntity } from './entities/delivery.entity';
import { findPage, Page } from '../database/find-page';
import { FollowUpEntity } from './entities/follow-up.entity';
import { DeliveryAttemptRow } from './delivery/delivery.mapper';
import { noDeliveries, toFollowUpResponse } from './follow-up.mapper';
import { parseSchedule, Schedule, ScheduleError } from './schedule/schedule.parser';
import { SchedulerEngine } from './scheduler.engine';
import { schedulerThreadBusy, SchedulerWorkers, SchedulePreviewTimeout } from './scheduler-workers';

const DEFAULT_TIME_ZONE = 'UTC';
const DEFAULT_PREVIEW_COUNT = 10;

const channelNotUsable = (detail: string) => new ProblemException('channel_not_usable', detail);

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
    private readonly channels: ChannelMessageSender,
    private readonly kinds: ChannelKinds,
    private readonly clock: Clock,
    private readonly engine: SchedulerEngine,
    private readonly workers: SchedulerWorkers,
    private readonly idempotencyKeys: IdempotencyKeys,
    private readonly templates: TemplateSendChecks,
  ) {}

  /**
   * A follow-up on a channel of `kind` (the API's route is WhatsApp's; any kind whose recipients
   * are phone numbers can hold one).
   */
  async createFollowUp(
    principal: Principal,
    kind: ChannelKind,
    dto: CreateFollowUpDto,
    idempotency?: IdempotentRequest,
  ): Promise<FollowUpEntity> {
    // An earlier run of this idempotent request created it (its answer was lost to a crash).
    if (idempotency?.resourceId)
      return this.findOne(principal.organizationId, idempotency.resourceId);
    const now = this.clock.now();
    const timeZone = dto.time_zone ?? DEFAULT_TIME_ZONE;
    // Checked in the scheduler's thread first: 10,000 numbers, or a rule that never fires, must
    // not stall the event loop.
    const organizationId = principal.organizationId;
    const [phones, checkErrors] = await Promise.all([
      this.workers.normalizePhoneNumbers(organizationId, dto.client_phone_numbers),
      this.workers.check(organizationId, dto.frequency, timeZone, now),
    ]).catch((error: unknown) => {
      throw schedulerThreadBusy(error);
    });
    const { schedule, errors: scheduleErrors } =
      checkErrors.length > 0
        ? { schedule: undefined, errors: checkErrors }
        : scheduleOrErrors(dto.frequency, timeZone, now);
    const errors = [...phones.errors, ...scheduleErrors];
    if (errors.length > 0 || !schedule) throw validationFailed(errors);

    const channelType = await this.assertUsableChannel(principal, kind, dto);
    const template = dto.template ? toMessageTemplate(dto.template) : null;
    if (template) {
      const blanks = descriptionBlanks(template, dto.description);
      if (blanks.length > 0) throw validationFailed(blanks);
      await this.templates.assertSendable(dto.channel_id, template);
    }

    const firstRun = schedule.firstRun();
    const followUp = this.followUps.create({
      id: uuidv7(now),
      organizationId: principal.organizationId,
      agentId: dto.agent_id,
      channelId: dto.channel_id,
      channelType,
      channelKind: kind,
      clientPhoneNumbers: phones.numbers,
      frequency: dto.frequency.trim(),
      timeZone,
      prompt: dto.prompt,
      title: dto.title,
      description: dto.description ?? null,
      template,
      status: firstRun === null ? 'completed' : 'active',
      anchorAt: new Date(now),
      nextRunAt: firstRun === null ? null : new Date(firstRun),
      createdBy: principal.subject,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });
    await this.idempotencyKeys.insertCreated(FollowUpEntity, followUp, idempotency);
    this.engine.wake();
    return followUp;
  }

  /** Follow-ups with their delivery counts, as every read answers them (one query for a page). */
  async responses(
    organizationId: string,
    followUps: readonly FollowUpEntity[],
  ): Promise<FollowUpDto[]> {
    const counts = await this.deliveryCounts(organizationId, followUps);
    return followUps.map((followUp) => toFollowUpResponse(followUp, counts.get(followUp.id)));
  }

  /**
   * Per follow-up, its deliveries by status: those of its latest occurrence (last_run_at), and
   * all. One query for a whole page.
   */
  async deliveryCounts(
    organizationId: string,
    followUps: readonly FollowUpEntity[],
  ): Promise<Map<string, FollowUpDeliveryCounts>> {
    const counts = new Map<string, FollowUpDeliveryCounts>(
      followUps.map((followUp) => [followUp.id, noDeliveries(followUp)]),
    );
    if (followUps.length === 0) return counts;
    const rows = (await this.followUps.query(
      `SELECT d.follow_up_id, d.status, d.occurrence_at = f.last_run_at AS latest, count(*) AS count
         FROM deliveries d JOIN follow_ups f ON f.id = d.follow_up_id
        WHERE d.organization_id = $1
          AND d.follow_up_id IN (SELECT value::uuid FROM jsonb_array_elements_text($2::jsonb))
        GROUP BY 1, 2, 3`,
      [organizationId, JSON.stringify(followUps.map((followUp) => followUp.id))],
    )) as { follow_up_id: string; status: DeliveryStatus; latest: boolean | null; count: string }[];
    for (const row of rows) {
      const entry = counts.get(row.follow_up_id);
      if (!entry) continue;
      entry.total[row.status] += Number(row.count);
      if (row.latest) entry.latest[row.status] += Number(row.count);
    }
    return counts;
  }

  async findOne(organizationId: string, id: string): Promise<FollowUpEntity> {
    const followUp = isUuid(id)
      ? await this.followUps.findOneBy({ id, organizationId, deletedAt: IsNull() })
      : null;
    if (!followUp) throw notFound('Follow-up');
    return followUp;
  }

  async list(
    organizationId: string,
    query: ListFollowUpsQueryDto,
  ): Promise<{ items: FollowUpEntity[]; offset: number; total_count: number }> {
    const offset = query.offset ?? 0;
    // Up to 10,000 phone numbers each: a page is bounded in bytes too.
    const { items, total } = await byteBoundedPage(
      this.followUps,
      {
        organizationId,
        deletedAt: IsNull(),
        ...(query.agent_id !== undefined && { agentId: query.agent_id }),
        ...(query.channel_id !== undefined && { channelId: query.channel_id }),
      },
      (row) => `octet_length(${row}.client_phone_numbers::text) + octet_length(${row}.prompt)`,
      { offset, limit: query.limit ?? DEFAULT_PAGE_SIZE },
    );
    return { items, offset, total_count: total };
  }

  async pause(organizationId: string, id: string): Promise<FollowUpEntity> {
    return this.setStatus(organizationId, id, 'paused');
  }

  /** A resumed follow-up whose next run passed while paused sends once at once, then continues. */
  async resume(organizationId: string, id: string): Promise<FollowUpEntity> {
    const followUp = await this.setStatus(organizationId, id, 'active');
    this.engine.wake();
    return followUp;
  }

  /** Soft delete: the follow-up disappears, its pending deliveries are cancelled, history stays. */
  async remove(organizationId: string, id: string): Promise<void> {
    const followUp = await this.findOne(organizationId, id);
    const now = new Date(this.clock.now());
    await this.followUps.manager.transaction(async (db) => {
      await db.update(
        FollowUpEntity,
        { id: followUp.id, organizationId },
        { deletedAt: now, nextRunAt: null, updatedAt: now },
      );
      await db.update(
        DeliveryEntity,
        { followUpId: followUp.id, organizationId, status: 'pending' },
        { status: 'cancelled', updatedAt: now },
      );
    });
  }

  async deliveries(
    organizationId: string,
    id: string,
    query: ListDeliveriesQueryDto,
  ): Promise<{
    items: DeliveryEntity[];
    attempts: Map<string, DeliveryAttemptRow[]>;
    offset: number;
    total_count: number;
  }> {
    const followUp = await this.findOne(organizationId, id);
    const where = {
      organizationId,
      followUpId: followUp.id,
      ...(query.status !== undefined && { status: query.status }),
    };
    const order = { occurrenceAt: 'DESC', phone: 'ASC' } as const;
    return this.deliveryPage(organizationId, { where, order }, query);
  }

  /**
   * A page of deliveries with the most recent attempts of each, read in one snapshot: an outcome
   * writes a row and its attempt in one statement, and a list read in two would show an attempt
   * `sent` beside its row still `sending`.
   */
  deliveryPage(
    organizationId: string,
    find: { where: FindOptionsWhere<DeliveryEntity>; order: FindOptionsOrder<DeliveryEntity> },
    query: { offset?: number; limit?: number },
  ): Promise<Page<DeliveryEntity> & { attempts: Map<string, DeliveryAttemptRow[]> }> {
    return this.followUps.manager.transaction('REPEATABLE READ', async (db) => {
      const page = await findPage(db, DeliveryEntity, find, query);
      return { ...page, attempts: await this.attempts(db, organizationId, page.items) };
    });
  }

  /** The most recent attempts of each delivery (bounded per delivery), by delivery id. */
  private async attempts(
    db: EntityManager,
    organizationId: string,
    deliveries: DeliveryEntity[],
  ): Promise<Map<string, DeliveryAttemptRow[]>> {
    const byDelivery = new Map<string, DeliveryAttemptRow[]>();
    if (deliveries.length === 0) return byDelivery;
    const rows: DeliveryAttemptRow[] = await db.query(
      `SELECT delivery_id, attempt, outcome, started_at, finished_at, wa_message_id, error_code,
              error_message, process_id
         FROM (SELECT a.*, row_number() OVER (PARTITION BY delivery_id ORDER BY attempt DESC) AS n
                 FROM delivery_attempts a
                WHERE a.organization_id = $1
                  AND a.delivery_id IN (SELECT value::uuid FROM jsonb_array_elements_text($2::jsonb))) a
        WHERE n <= $3
        ORDER BY delivery_id, attempt DESC`,
      [organizationId, JSON.stringify(deliveries.map((d) => d.id)), MAX_LISTED_ATTEMPTS],
    );
    for (const row of rows) {
      const list = byDelivery.get(row.delivery_id) ?? [];
      list.push(row);
      byDelivery.set(row.delivery_id, list);
    }
    return byDelivery;
  }

  private async setStatus(
    organizationId: string,
    id: string,
    status: 'active' | 'paused',
  ): Promise<FollowUpEntity> {
    const followUp = await this.findOne(organizationId, id);
    const updatedAt = new Date(this.clock.now());
    // Conditional, so that a follow-up the dispatcher completes meanwhile is never revived.
    const result = await this.followUps
      .createQueryBuilder()
      .update()
      .set({ status, updatedAt })
      .where('id = :id AND organization_id = :organizationId AND status <> :completed', {
        id: followUp.id,
        organizationId,
        completed: 'completed',
      })
      .execute();
    if (!result.affected) {
      throw new ProblemException(
        'conflict',
        'The follow-up has completed; nothing is left to run.',
      );
    }
    return this.findOne(organizationId, id);
  }

  /** The next occurrences, expanded in a worker thread (SchedulerWorkers), in the organization's turn. */
  async preview(organizationId: string, query: SchedulePreviewQueryDto): Promise<number[]> {
    const count = query.count ?? DEFAULT_PREVIEW_COUNT;
    try {
      const result = await this.workers.preview(organizationId, {
        frequency: query.frequency,
        time_zone: query.time_zone ?? DEFAULT_TIME_ZONE,
        count,
        from: query.from ?? this.clock.now(),
      });
      if ('error' in result) throw validationFailed([result.error]);
      return result.occurrences;
    } catch (error) {
      if (!(error instanceof SchedulePreviewTimeout)) throw schedulerThreadBusy(error);
      throw validationFailed([
        {
          field: 'count',
          message: `expanding ${count} occurrences of this schedule ${error.message}; ask for fewer`,
        },
      ]);
    }
  }

  /**
   * The channel must be the organization's, of this kind, of this agent, and active: else 422.
   * Answers the kind's `channel_type`.
   */
  private async assertUsableChannel(
    principal: Principal,
    kind: ChannelKind,
    { channel_id: channelId, agent_id: agentId, template }: CreateFollowUpDto,
  ): Promise<string> {
    const descriptor = this.kinds.get(kind);
    if (descriptor.recipients !== 'phone') {
      throw channelNotUsable(
        `${descriptor.label} channels cannot hold follow-ups: no phone numbers.`,
      );
    }
    // A template is what goes outside a messaging window; a kind without templates has none.
    if (template !== undefined && descriptor.outsideWindow !== 'template') {
      throw validationFailed([
        { field: 'template', message: `${descriptor.label} channels send no templates` },
      ]);
    }
    const unusable = await this.channels.check(
      { organizationId: principal.organizationId, channelId },
      { kind, agentId },
    );
    if (unusable) {
      throw channelNotUsable(
        describeUnusable(unusable, {
          channelId,
          agentId,
          label: descriptor.label,
          wrongKind: `${descriptor.label} follow-ups need a ${descriptor.label} channel.`,
        }),
      );
    }
    return descriptor.type;
  }
}

const DESCRIPTION_PLACEHOLDER = /\{\{\s*description\s*\}\}/;

/**
 * A template value that uses {{description}} when the follow-up has none: it would always be filled
 * with nothing (or less than was meant), and Meta refuses an empty value (131008), so it is a 400
 * at create rather than a failed delivery every occurrence.
 */
function descriptionBlanks(
  template: MessageTemplate,
  description: string | undefined,
): FieldError[] {
  if (description?.trim()) return [];
  return templateValues(template)
    .filter((value) => DESCRIPTION_PLACEHOLDER.test(value.text))
    .map((value) => ({
      field: value.field,
      message: `${value.field} uses {{description}}, but the follow-up has no description: give one, or another value`,
    }));
}
