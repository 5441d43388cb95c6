import type { Kysely } from 'kysely';

/**
 * What the cleaning job (engine/retention/) reads, so each of its small
 * batches is an index range and never a scan of a table that grows with the
 * e-CF issued:
 *
 * - finished webhook deliveries by status and when they last changed (a
 *   retried one starts its time again); `webhook_deliveries_created` served
 *   only the old 30-day purge, which this job replaces, and goes;
 * - a delivery by its event: an event is removed only when no delivery
 *   names it, and the foreign key's own check on that delete needs the index
 *   too (without it both stores scan every delivery for each event removed);
 * - events by when they were written;
 * - duplicate detection's fingerprints by when their e-CF was issued.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_finished').on('webhook_deliveries').columns(['status', 'updated_at']).execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id']).execute();
  await db.schema.dropIndex('webhook_deliveries_created').execute();
  await db.schema.createIndex('events_created').on('events').columns(['created_at']).execute();
  await db.schema.createIndex('ecf_fingerprints_issued').on('ecf_fingerprints').columns(['issued_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ecf_fingerprints_issued').execute();
  await db.schema.dropIndex('events_created').execute();
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['created_at']).execute();
  await db.schema.dropIndex('webhook_deliveries_event').execute();
  await db.schema.dropIndex('webhook_deliveries_finished').execute();
}
