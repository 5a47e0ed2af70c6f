import type { RetentionPolicy } from '../../database/retention';

/**
 * Meta's raw notifications, once processed or set aside (never a pending one, which is still to
 * be applied). What they said is in the conversation tables by then; a resend that arrives after
 * its row went is stored and applied again, which changes nothing (messages and statuses are
 * unique by Meta's ids).
 */
export const WEBHOOK_INBOX_RETENTION: RetentionPolicy = {
  table: 'webhook_inbox',
  deleteBatch: `
    DELETE FROM webhook_inbox WHERE id IN (
      SELECT id FROM webhook_inbox
       WHERE status <> 'pending' AND received_at < $1
       LIMIT $2 FOR UPDATE SKIP LOCKED)
    RETURNING id`,
};
