/** What other modules may use of scheduler (docs/architecture.md, "Module boundaries"). */
export {
  CreateFollowUpDto,
  ListFollowUpsQueryDto,
  SchedulePreviewQueryDto,
} from './dto/follow-up.dto';
export { toFollowUpResponse } from './follow-up.mapper';
export { FollowUpsService } from './follow-ups.service';
export { SchedulePreviewTimeout, SchedulerWorkers } from './scheduler-workers';
export { readSchedulerConfig } from './scheduler.config';
export { SchedulerEngine } from './scheduler.engine';
export { SchedulerModule } from './scheduler.module';
export { DELIVERY_AGENT_EVENTS } from './delivery/delivery-events.openapi';
