import { sql, type Kysely } from 'kysely';
import { createRowTrigger, dropRowTrigger, rowKey, withoutRowid } from './ddl.js';

const BACKFILL_BATCH = 5000;

/**
 * A copy of ecf/search-key.ts as it was when this migration was written: the
 * backfill must write the keys of that day even if the live rule changes
 * (a change would come with a migration of its own).
 */
const searchKey = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Measured on a million e-CF: the list's exact `totalCount` was a count over
 * every row of the tenant (about 150 ms), filters by type, status or
 * environment sorted every match because their indexes lacked the `id`
 * tie-break, and a search by buyer name scanned the table (LIKE cannot use a
 * case-sensitive index).
 *
 * - `ecf_counts` keeps the number of e-CF per tenant, environment, type and
 *   status, maintained by triggers so no code path that writes `ecf` can
 *   forget it; a list filtered on those columns only sums a few rows.
 * - The type, status and environment indexes end in `id`.
 * - Buyer names are searched through `buyer_name_key` (see search-key.ts:
 *   no case, no accents) and its index, by prefix range.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withoutRowid(
    db,
    db.schema
      .createTable('ecf_counts')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('ecf_counts_pk', ['tenant_id', 'environment', 'type', 'status']),
  ).execute();
  await sql`insert into ecf_counts (tenant_id, environment, type, status, n)
    select tenant_id, environment, type, status, count(*) from ecf group by tenant_id, environment, type, status`.execute(db);

  const add = (row: 'new' | 'old', delta: 1 | -1) =>
    `insert into ecf_counts (tenant_id, environment, type, status, n)
      values (${row}.tenant_id, ${row}.environment, ${row}.type, ${row}.status, ${delta})
      on conflict (tenant_id, environment, type, status) do update set n = ecf_counts.n + (${delta})`;
  await createRowTrigger(db, { name: 'ecf_counts_insert', table: 'ecf', on: 'insert', body: [add('new', 1)] });
  await createRowTrigger(db, { name: 'ecf_counts_delete', table: 'ecf', on: 'delete', body: [add('old', -1)] });
  await createRowTrigger(db, {
    name: 'ecf_counts_update',
    table: 'ecf',
    on: { update: ['tenant_id', 'environment', 'type', 'status'] },
    body: [add('old', -1), add('new', 1)],
  });

  for (const [name, column] of [
    ['ecf_list_type', 'type'],
    ['ecf_list_status', 'status'],
    ['ecf_list_environment', 'environment'],
  ] as const) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(`${name}_id`).on('ecf').columns(['tenant_id', column, 'issued_at', 'id']).execute();
  }
  await db.schema.dropIndex('ecf_search_buyer_name').execute();
  await db.schema.alterTable('ecf').addColumn('buyer_name_key', 'text').execute();
  const key = rowKey(db);
  for (let after = key.first; ; ) {
    const { rows } = await sql<{ k: number | string; buyer_name: string }>`select ${key.ref} as k, buyer_name from ecf
      where ${key.ref} > ${after} and buyer_name is not null order by ${key.ref} limit ${BACKFILL_BATCH}`.execute(db);
    for (const r of rows) await sql`update ecf set buyer_name_key = ${searchKey(r.buyer_name)} where ${key.ref} = ${r.k}`.execute(db);
    if (rows.length < BACKFILL_BATCH) break;
    after = rows[rows.length - 1]!.k;
  }
  await db.schema.createIndex('ecf_search_buyer_name_key').on('ecf').columns(['tenant_id', 'buyer_name_key']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ecf_search_buyer_name_key').execute();
  await db.schema.alterTable('ecf').dropColumn('buyer_name_key').execute();
  await db.schema.createIndex('ecf_search_buyer_name').on('ecf').columns(['tenant_id', 'buyer_name']).execute();
  for (const [name, column] of [
    ['ecf_list_type', 'type'],
    ['ecf_list_status', 'status'],
    ['ecf_list_environment', 'environment'],
  ] as const) {
    await db.schema.dropIndex(`${name}_id`).execute();
    await db.schema.createIndex(name).on('ecf').columns(['tenant_id', column, 'issued_at']).execute();
  }
  for (const t of ['ecf_counts_insert', 'ecf_counts_delete', 'ecf_counts_update']) await dropRowTrigger(db, t, 'ecf');
  await db.schema.dropTable('ecf_counts').execute();
}
