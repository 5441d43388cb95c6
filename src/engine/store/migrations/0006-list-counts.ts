import { sql, type Kysely } from 'kysely';
import { searchKey } from '../../ecf/search-key.js';

const BACKFILL_BATCH = 5000;

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
  await sql`create table ecf_counts (
    tenant_id text not null,
    environment text not null,
    type integer not null,
    status text not null,
    n integer not null,
    primary key (tenant_id, environment, type, status)
  ) without rowid`.execute(db);
  await sql`insert into ecf_counts (tenant_id, environment, type, status, n)
    select tenant_id, environment, type, status, count(*) from ecf group by tenant_id, environment, type, status`.execute(db);

  const add = (row: 'new' | 'old', delta: 1 | -1) =>
    sql.raw(`insert into ecf_counts (tenant_id, environment, type, status, n)
      values (${row}.tenant_id, ${row}.environment, ${row}.type, ${row}.status, ${delta})
      on conflict (tenant_id, environment, type, status) do update set n = n + (${delta})`);
  await sql`create trigger ecf_counts_insert after insert on ecf begin ${add('new', 1)}; end`.execute(db);
  await sql`create trigger ecf_counts_delete after delete on ecf begin ${add('old', -1)}; end`.execute(db);
  await sql`create trigger ecf_counts_update after update of tenant_id, environment, type, status on ecf
    when old.tenant_id is not new.tenant_id or old.environment is not new.environment or old.type is not new.type or old.status is not new.status
    begin ${add('old', -1)}; ${add('new', 1)}; end`.execute(db);

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
  for (let after = 0; ; ) {
    const { rows } = await sql<{ rowid: number; buyer_name: string }>`select rowid, buyer_name from ecf
      where rowid > ${after} and buyer_name is not null order by rowid limit ${BACKFILL_BATCH}`.execute(db);
    for (const r of rows) await sql`update ecf set buyer_name_key = ${searchKey(r.buyer_name)} where rowid = ${r.rowid}`.execute(db);
    if (rows.length < BACKFILL_BATCH) break;
    after = rows[rows.length - 1]!.rowid;
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
  for (const t of ['ecf_counts_insert', 'ecf_counts_delete', 'ecf_counts_update']) await sql`drop trigger ${sql.raw(t)}`.execute(db);
  await db.schema.dropTable('ecf_counts').execute();
}
