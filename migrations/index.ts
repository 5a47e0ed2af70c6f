import { InitialSchema1763800000000 } from './1763800000000-initial-schema';
import { DeliveryOutbox1763900000000 } from './1763900000000-delivery-outbox';

/** Every migration in order. Migrations are never edited after they land; add a new one. */
export const MIGRATIONS = [InitialSchema1763800000000, DeliveryOutbox1763900000000];
