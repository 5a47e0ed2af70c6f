import { Logger } from '@nestjs/common';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** How a channel displaced by this migration is marked (docs/decisions.md, issue 17 item 6). */
const DISPLACED_CODE = 'meta_id_in_use';

const KINDS = [
  { table: 'whatsapp_channels', metaId: 'number_id', index: 'whatsapp_channels_number_key' },
  { table: 'messanger_channels', metaId: 'user_id', index: 'messanger_channels_user_key' },
] as const;

/**
 * One owner per Meta id (issue 17, item 6): a WhatsApp number id or a Page id is bound to at most
 * one live channel, across organizations, so no organization can bind another's id and read the
 * notifications Meta sends for it. Channels may also carry their own Meta app secret.
 *
 * Ids already bound more than once are resolved deterministically, losing nothing: per id, the
 * oldest `active` channel (else the oldest) keeps it; every other one is removed as DELETE removes
 * a channel (`deleted_at` set, the row and its messages and deliveries kept, its follow-ups
 * completed, its pending deliveries cancelled), marked `inactive` with status_reason_code
 * `meta_id_in_use`, so that an operator can find it and give the id to it instead.
 */
export class OneOwnerPerMetaId1764500000500 implements MigrationInterface {
  name = 'OneOwnerPerMetaId1764500000500';

  async up(db: QueryRunner): Promise<void> {
    for (const { table, metaId, index } of KINDS) {
      await db.query(`ALTER TABLE ${table} ADD COLUMN app_secret_encrypted text`);
      await db.query(
        `UPDATE ${table} c
            SET deleted_at = now(), updated_at = now(), status = 'inactive',
                status_reason_code = '${DISPLACED_CODE}',
                status_reason_message = 'Removed when ${metaId} became one owner''s (issue 17): '
                  || 'an older channel holds ' || c.${metaId} || '.'
           FROM (SELECT id, row_number() OVER (PARTITION BY ${metaId}
                                               ORDER BY status = 'active' DESC, created_at, id) AS rank
                   FROM ${table} WHERE deleted_at IS NULL) ranked
          WHERE c.id = ranked.id AND ranked.rank > 1`,
      );
      const displaced = (await db.query(
        `SELECT id FROM ${table} WHERE status_reason_code = '${DISPLACED_CODE}' AND deleted_at IS NOT NULL`,
      )) as { id: string }[];
      if (displaced.length > 0) {
        await this.stopDeliveries(db, table);
        new Logger(this.name).warn(
          `${displaced.length} ${table} bound a ${metaId} that an older channel holds; removed ` +
            `(kept, status_reason_code ${DISPLACED_CODE}): ${displaced.map((row) => row.id).join(', ')}`,
        );
      }
      await db.query(
        `CREATE UNIQUE INDEX ${index} ON ${table} (${metaId}) WHERE deleted_at IS NULL`,
      );
    }
    // The organization-wide uniqueness is now implied by the global one.
    await db.query('DROP INDEX whatsapp_channels_org_number_key');
  }

  /** What removing a channel does to its follow-ups and deliveries (DeliveryStatuses). */
  private async stopDeliveries(db: QueryRunner, table: string): Promise<void> {
    const displaced = `SELECT id FROM ${table}
                        WHERE status_reason_code = '${DISPLACED_CODE}' AND deleted_at IS NOT NULL`;
    if (table === 'whatsapp_channels') {
      await db.query(
        `UPDATE follow_ups SET status = 'completed', next_run_at = NULL, updated_at = now()
          WHERE channel_id IN (${displaced}) AND status IN ('active', 'paused')
            AND deleted_at IS NULL`,
      );
    }
    await db.query(
      `UPDATE deliveries SET status = 'cancelled', updated_at = now()
        WHERE channel_id IN (${displaced}) AND status = 'pending'`,
    );
    await db.query(
      `UPDATE deliveries SET cancel_requested = true, updated_at = now()
        WHERE channel_id IN (${displaced}) AND status = 'sending'`,
    );
  }

  /** The displaced channels stay removed: which one should own an id is not for a rollback to say. */
  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE UNIQUE INDEX whatsapp_channels_org_number_key ON whatsapp_channels (organization_id, number_id)
        WHERE deleted_at IS NULL`,
    );
    for (const { table, index } of KINDS) {
      await db.query(`DROP INDEX ${index}`);
      await db.query(`ALTER TABLE ${table} DROP COLUMN app_secret_encrypted`);
    }
  }
}
