import { DeliveryEntity } from './entities/delivery.entity';
import { FollowUpEntity } from './entities/follow-up.entity';

/** The tables the scheduler owns; registered once, by SchedulerModule (autoLoadEntities). */
export const SCHEDULER_ENTITIES = [FollowUpEntity, DeliveryEntity];
