import { sql, type Kysely } from 'kysely';
import { createRowTrigger, dominicanDay, dropRowTrigger, isSqlite, withoutRowid } from './ddl.js';

/**
 * Measured with bench/list-million.bench.ts (dbstat, per table and index):
 * the `ecf` row's indexes cost more than the row itself, and a list filtered
 * by issue date or by Retrying counted its matches by reading every one
 * (Retrying read the whole table: half a second at 100,000 e-CF).
 *
 * - On SQLite every index already ends in the rowid, so the list and search
 *   indexes no longer repeat the 36-byte `id` as their tie-break: the list
 *   breaks ties by rowid there (store/functions.ts `rowKey`). PostgreSQL has
 *   no stable row number and keeps `id`.
 * - `ecf_day_counts` keeps the number of e-CF per tenant, Dominican issue
 *   day, environment, type, status and whether a retry is pending, kept by
 *   triggers like `ecf_counts` (0006), so a list filtered by From/To or
 *   Retrying sums at most a few rows per day instead of counting e-CF.
 * - A partial index holds the few e-CF with a retry pending, so a Retrying
 *   page reads those only.
 */
const REBUILT = [
  ['ecf_list_issued_id', 'ecf_list_issued', ['issued_at']],
  ['ecf_list_amount_id', 'ecf_list_amount', ['monto_total_cents']],
  ['ecf_list_type_id', 'ecf_list_type', ['type', 'issued_at']],
  ['ecf_list_status_id', 'ecf_list_status', ['status', 'issued_at']],
  ['ecf_list_environment_id', 'ecf_list_environment', ['environment', 'issued_at']],
  ['ecf_search_encf_sorted', 'ecf_search_encf', ['encf', 'issued_at', 'monto_total_cents']],
  ['ecf_search_buyer_rnc_sorted', 'ecf_search_buyer_rnc', ['buyer_rnc', 'issued_at', 'monto_total_cents']],
  ['ecf_search_buyer_name_key_sorted', 'ecf_search_buyer_name_key', ['buyer_name_key', 'issued_at', 'monto_total_cents']],
] as const;

const DIMENSIONS = ['tenant_id', 'day', 'environment', 'type', 'status', 'retrying'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    for (const [old, name, columns] of REBUILT) {
      await db.schema.dropIndex(old).execute();
      await db.schema.createIndex(name).on('ecf').columns(['tenant_id', ...columns]).execute();
    }
  }
  await db.schema
    .createIndex('ecf_list_retrying')
    .on('ecf')
    .columns(isSqlite(db) ? ['tenant_id', 'issued_at'] : ['tenant_id', 'issued_at', 'id'])
    .where(sql.ref('retry'), 'is not', null)
    .execute();

  await withoutRowid(
    db,
    db.schema
      .createTable('ecf_day_counts')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('retrying', 'integer', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('ecf_day_counts_pk', [...DIMENSIONS]),
  ).execute();
  const day = (row: string) => dominicanDay(db, `${row}.issued_at`);
  const retrying = (row: string) => `case when ${row}.retry is null then 0 else 1 end`;
  await sql
    .raw(
      `insert into ecf_day_counts (${DIMENSIONS.join(', ')}, n)
       select tenant_id, ${day('ecf')}, environment, type, status, ${retrying('ecf')}, count(*) from ecf
       group by tenant_id, ${day('ecf')}, environment, type, status, ${retrying('ecf')}`,
    )
    .execute(db);
  const add = (row: 'new' | 'old', delta: 1 | -1) =>
    `insert into ecf_day_counts (${DIMENSIONS.join(', ')}, n)
      values (${row}.tenant_id, ${day(row)}, ${row}.environment, ${row}.type, ${row}.status, ${retrying(row)}, ${delta})
      on conflict (${DIMENSIONS.join(', ')}) do update set n = ecf_day_counts.n + (${delta})`;
  await createRowTrigger(db, { name: 'ecf_day_counts_insert', table: 'ecf', on: 'insert', body: [add('new', 1)] });
  await createRowTrigger(db, { name: 'ecf_day_counts_delete', table: 'ecf', on: 'delete', body: [add('old', -1)] });
  await createRowTrigger(db, {
    name: 'ecf_day_counts_update',
    table: 'ecf',
    on: { update: ['tenant_id', 'environment', 'type', 'status', 'issued_at', 'retry'] },
    body: [add('old', -1), add('new', 1)],
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['ecf_day_counts_insert', 'ecf_day_counts_delete', 'ecf_day_counts_update']) await dropRowTrigger(db, t, 'ecf');
  await db.schema.dropTable('ecf_day_counts').execute();
  await db.schema.dropIndex('ecf_list_retrying').execute();
  if (isSqlite(db)) {
    for (const [old, name, columns] of REBUILT) {
      await db.schema.dropIndex(name).execute();
      await db.schema.createIndex(old).on('ecf').columns(['tenant_id', ...columns, 'id']).execute();
    }
  }
}
