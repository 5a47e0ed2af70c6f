import { MigrationInterface, QueryRunner } from 'typeorm';

/** Which process sent a delivery (host:pid:nonce), for operators tracing a send across replicas. */
export class DeliverySentBy1764000000003 implements MigrationInterface {
  name = 'DeliverySentBy1764000000003';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE deliveries ADD COLUMN sent_by text');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE deliveries DROP COLUMN sent_by');
  }
}
