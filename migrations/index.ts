import { InitialSchema1763800000000 } from './1763800000000-initial-schema';

/** Every migration in order. Migrations are never edited after they land; add a new one. */
export const MIGRATIONS = [InitialSchema1763800000000];
