import type { RetentionPolicy } from '../../database/retention';

/**
 * The attempt history of finished deliveries (sent, delivered, read, failed, skipped, cancelled;
 * a sent one goes back to pending only on a 131047 `failed` status, days before retention could
 * reach it). A pending or sending delivery keeps all of its attempts: the outbox
 * still writes them, and they explain a repeat. The delivery itself, with its outcome, stays.
 */
export const DELIVERY_ATTEMPTS_RETENTION: RetentionPolicy = {
  table: 'delivery_attempts',
  deleteBatch: `
    DELETE FROM delivery_attempts a
     USING (SELECT x.delivery_id, x.attempt
              FROM delivery_attempts x JOIN deliveries d ON d.id = x.delivery_id
             WHERE x.started_at < $1 AND d.status NOT IN ('pending', 'sending')
             LIMIT $2 FOR UPDATE OF x SKIP LOCKED) old
     WHERE a.delivery_id = old.delivery_id AND a.attempt = old.attempt
    RETURNING a.delivery_id`,
};
