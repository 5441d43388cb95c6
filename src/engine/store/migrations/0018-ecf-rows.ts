import { sql, type Kysely } from 'kysely';
import { createRowTrigger, dominicanDay, dropRowTrigger, isSqlite, rowKey, withoutRowid } from './ddl.js';

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
 * - `ecf_amount_counts` keeps the number of e-CF per tenant, amount band,
 *   environment, type and status. A band is the amount's number of digits
 *   and its first two (ecf/amount-band.ts; 90 bands a decade), so a count
 *   by MinAmount/MaxAmount sums the bands wholly inside the bounds and counts
 *   only the edge bands' e-CF, from the amount index, which now also holds
 *   type, status and environment so that count reads no table row.
 * - A partial index holds the few e-CF with a retry pending, so a Retrying
 *   page reads those only.
 * - The fingerprint of duplicate detection (64 hex characters on the row and
 *   again in an index with the tenant and the instant: about 220 bytes per
 *   e-CF) is only looked for within `duplicates.window_minutes` (at most
 *   seven days), so it moves to `ecf_fingerprints`, which the retention job
 *   may empty of rows older than seven days. The rows of the last seven days
 *   before the newest e-CF move with it; `ecf.fingerprint` is left empty.
 */
const REBUILT = [
  ['ecf_list_issued_id', 'ecf_list_issued', ['issued_at']],
  ['ecf_list_type_id', 'ecf_list_type', ['type', 'issued_at']],
  ['ecf_list_status_id', 'ecf_list_status', ['status', 'issued_at']],
  ['ecf_list_environment_id', 'ecf_list_environment', ['environment', 'issued_at']],
  ['ecf_search_encf_sorted', 'ecf_search_encf', ['encf', 'issued_at', 'monto_total_cents']],
  ['ecf_search_buyer_rnc_sorted', 'ecf_search_buyer_rnc', ['buyer_rnc', 'issued_at', 'monto_total_cents']],
  ['ecf_search_buyer_name_key_sorted', 'ecf_search_buyer_name_key', ['buyer_name_key', 'issued_at', 'monto_total_cents']],
] as const;

/** The longest `duplicates.window_minutes` allows (10,080 minutes). */
const LONGEST_WINDOW_MS = 7 * 86_400_000;
const BATCH = 5000;

const DIMENSIONS = ['tenant_id', 'day', 'environment', 'type', 'status', 'retrying'] as const;
const AMOUNT_DIMENSIONS = ['tenant_id', 'band', 'environment', 'type', 'status'] as const;

/** A copy of ecf/amount-band.ts `amountBand` in SQL: digits * 100 + the first two digits; 0 to 9 as they are; -1 below zero. */
function band(db: Kysely<unknown>, cents: string): string {
  const text = isSqlite(db) ? `cast(${cents} as text)` : `(${cents})::text`;
  const two = isSqlite(db) ? `cast(substr(${text}, 1, 2) as integer)` : `substr(${text}, 1, 2)::integer`;
  return `case when ${cents} < 0 then -1 when ${cents} < 10 then ${cents} else length(${text}) * 100 + ${two} end`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    for (const [old, name, columns] of REBUILT) {
      await db.schema.dropIndex(old).execute();
      await db.schema.createIndex(name).on('ecf').columns(['tenant_id', ...columns]).execute();
    }
  }
  await db.schema.dropIndex('ecf_list_amount_id').execute();
  if (isSqlite(db)) {
    await db.schema.createIndex('ecf_list_amount_counted').on('ecf').columns(['tenant_id', 'monto_total_cents', 'type', 'status', 'environment']).execute();
  } else {
    await sql`create index ecf_list_amount_counted on ecf (tenant_id, monto_total_cents, id) include (type, status, environment)`.execute(db);
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
      .createTable('ecf_fingerprints')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('issued_at', 'text', (c) => c.notNull())
      .addColumn('ecf_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ecf_fingerprints_pk', ['tenant_id', 'fingerprint', 'issued_at', 'ecf_id']),
  ).execute();
  const newest = (await sql<{ at: string | null }>`select max(issued_at) as at from ecf`.execute(db)).rows[0]?.at;
  if (newest) {
    const since = new Date(Date.parse(newest) - LONGEST_WINDOW_MS).toISOString();
    for (let after = ''; ; ) {
      const { rows } = await sql<{ id: string; tenant_id: string; fingerprint: string; issued_at: string }>`select id, tenant_id, fingerprint, issued_at from ecf
        where issued_at >= ${since} and id > ${after} order by id limit ${BATCH}`.execute(db);
      if (rows.length) await db.insertInto('ecf_fingerprints' as never).values(rows.map((r) => ({ tenant_id: r.tenant_id, fingerprint: r.fingerprint, issued_at: r.issued_at, ecf_id: r.id })) as never).execute();
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
  }
  await db.schema.dropIndex('ecf_fingerprint').execute();
  // The column stays, empty (one byte of the record's header): dropping it could not be undone to the
  // same table on SQLite, whose ALTER TABLE adds a column only at the end.
  const key = rowKey(db);
  for (let after = key.first; ; ) {
    const { rows } = await sql<{ k: number | string }>`select ${key.ref} as k from ecf where ${key.ref} > ${after} order by ${key.ref} limit ${BATCH}`.execute(db);
    if (!rows.length) break;
    const last = rows[rows.length - 1]!.k;
    await sql`update ecf set fingerprint = '' where ${key.ref} > ${after} and ${key.ref} <= ${last}`.execute(db);
    if (rows.length < BATCH) break;
    after = last;
  }

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

  await withoutRowid(
    db,
    db.schema
      .createTable('ecf_amount_counts')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('band', 'integer', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('ecf_amount_counts_pk', [...AMOUNT_DIMENSIONS]),
  ).execute();
  await sql
    .raw(
      `insert into ecf_amount_counts (${AMOUNT_DIMENSIONS.join(', ')}, n)
       select tenant_id, ${band(db, 'ecf.monto_total_cents')}, environment, type, status, count(*) from ecf
       group by tenant_id, ${band(db, 'ecf.monto_total_cents')}, environment, type, status`,
    )
    .execute(db);
  const addAmount = (row: 'new' | 'old', delta: 1 | -1) =>
    `insert into ecf_amount_counts (${AMOUNT_DIMENSIONS.join(', ')}, n)
      values (${row}.tenant_id, ${band(db, `${row}.monto_total_cents`)}, ${row}.environment, ${row}.type, ${row}.status, ${delta})
      on conflict (${AMOUNT_DIMENSIONS.join(', ')}) do update set n = ecf_amount_counts.n + (${delta})`;
  await createRowTrigger(db, { name: 'ecf_amount_counts_insert', table: 'ecf', on: 'insert', body: [addAmount('new', 1)] });
  await createRowTrigger(db, { name: 'ecf_amount_counts_delete', table: 'ecf', on: 'delete', body: [addAmount('old', -1)] });
  await createRowTrigger(db, {
    name: 'ecf_amount_counts_update',
    table: 'ecf',
    on: { update: ['tenant_id', 'environment', 'type', 'status', 'monto_total_cents'] },
    body: [addAmount('old', -1), addAmount('new', 1)],
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['ecf_amount_counts_insert', 'ecf_amount_counts_delete', 'ecf_amount_counts_update']) await dropRowTrigger(db, t, 'ecf');
  await db.schema.dropTable('ecf_amount_counts').execute();
  await db.schema.dropIndex('ecf_list_amount_counted').execute();
  await db.schema.createIndex('ecf_list_amount_id').on('ecf').columns(['tenant_id', 'monto_total_cents', 'id']).execute();
  for (const t of ['ecf_day_counts_insert', 'ecf_day_counts_delete', 'ecf_day_counts_update']) await dropRowTrigger(db, t, 'ecf');
  await db.schema.dropTable('ecf_day_counts').execute();
  await sql`update ecf set fingerprint = coalesce((select max(f.fingerprint) from ecf_fingerprints f where f.ecf_id = ecf.id), '')`.execute(db);
  await db.schema.createIndex('ecf_fingerprint').on('ecf').columns(['tenant_id', 'fingerprint', 'issued_at']).execute();
  await db.schema.dropTable('ecf_fingerprints').execute();
  await db.schema.dropIndex('ecf_list_retrying').execute();
  if (isSqlite(db)) {
    for (const [old, name, columns] of REBUILT) {
      await db.schema.dropIndex(name).execute();
      await db.schema.createIndex(old).on('ecf').columns(['tenant_id', ...columns, 'id']).execute();
    }
  }
}
