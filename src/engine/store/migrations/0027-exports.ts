import type { Kysely } from 'kysely';

/**
 * Period exports asked for over the API (issue 35; engine/export/jobs.ts):
 * one row per request, from pending to running to ready or failed; the ZIP
 * itself lies in the data dir (exports/<id>.zip). The store-clean job
 * removes a finished one, row and file, once older than `exports.keep_days`
 * (by finished_at).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('period_from', 'text', (col) => col.notNull())
    .addColumn('period_to', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('file_bytes', 'bigint')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('exports_tenant').on('exports').columns(['tenant_id', 'created_at']).execute();
  await db.schema.createIndex('exports_finished').on('exports').columns(['finished_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('exports').execute();
}
