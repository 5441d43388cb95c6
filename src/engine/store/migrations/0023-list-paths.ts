import { sql, type Kysely } from 'kysely';
import { createRowTrigger, dominicanDayOfMillis, dropRowTrigger, isSqlite, rowKey, withoutRowid } from './ddl.js';

/**
 * Measured with bench/list-million.bench.ts at a million e-CF: a list with
 * an amount bound and From/To counted its `totalCount` by reading every
 * match (about 290 ms for a month), since the amount bands of
 * `ecf_amount_counts` (0018) have no day, and the amount index did not hold
 * the issue instant, so each match cost a table lookup.
 *
 * - `ecf_day_amount_counts` keeps the number of e-CF per tenant, Dominican
 *   issue day and amount band (the bands of ecf/amount-band.ts), kept by
 *   triggers like the other counts: such a count sums the bands wholly inside
 *   the bounds over the days, and counts only the edge bands' e-CF. It has no
 *   type, status or environment: per day those would multiply its rows past
 *   what a month's sum can read in a few milliseconds.
 * - `ecf_retry_counts` keeps the number of e-CF per tenant, environment,
 *   type, status and whether a retry is pending: Retrying without From/To
 *   summed a year of `ecf_day_counts` (16,000 rows, 4-5 ms at any size), now
 *   at most a few dozen rows.
 * - `ecf_list_amount_counted` also holds `issued_at`, so the edge bands are
 *   counted, and an amount-sorted page with From/To filtered, from the index
 *   alone.
 *
 * The counts are filled in batches of rows, so nothing grows with the store.
 */
const BATCH = 20_000;
const DIMENSIONS = ['tenant_id', 'day', 'band'] as const;
const RETRY_DIMENSIONS = ['tenant_id', 'environment', 'type', 'status', 'retrying'] as const;

/** A copy of ecf/amount-band.ts `amountBand` in SQL (as 0018 has it). */
function band(db: Kysely<unknown>, cents: string): string {
  const text = isSqlite(db) ? `cast(${cents} as text)` : `(${cents})::text`;
  const two = isSqlite(db) ? `cast(substr(${text}, 1, 2) as integer)` : `substr(${text}, 1, 2)::integer`;
  return `case when ${cents} < 0 then -1 when ${cents} < 10 then ${cents} else length(${text}) * 100 + ${two} end`;
}

/** The counts tables keep the tenant's id; `ecf` holds its store key (0021). */
const tenantOf = (row: string) => `(select t.id from tenants t where t.store_key = ${row}.tenant_key)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await withoutRowid(
    db,
    db.schema
      .createTable('ecf_day_amount_counts')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('band', 'integer', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('ecf_day_amount_counts_pk', [...DIMENSIONS]),
  ).execute();
  const key = rowKey(db);
  const day = (row: string) => dominicanDayOfMillis(db, `${row}.issued_at`);
  const upsert = `on conflict (${DIMENSIONS.join(', ')}) do update set n = ecf_day_amount_counts.n + excluded.n`;
  for (let after = key.first; ; ) {
    const { rows } = await sql<{ k: number | string }>`select ${key.ref} as k from ecf where ${key.ref} > ${after} order by ${key.ref} limit 1 offset ${BATCH - 1}`.execute(db);
    const last = rows[0]?.k;
    const range = last === undefined ? sql`${key.ref} > ${after}` : sql`${key.ref} > ${after} and ${key.ref} <= ${last}`;
    await sql`insert into ecf_day_amount_counts (tenant_id, day, band, n)
      select ${sql.raw(tenantOf('e'))}, ${sql.raw(day('e'))}, ${sql.raw(band(db, 'e.monto_total_cents'))}, count(*) from ecf e where ${range}
      group by e.tenant_key, ${sql.raw(day('e'))}, ${sql.raw(band(db, 'e.monto_total_cents'))} ${sql.raw(upsert)}`.execute(db);
    if (last === undefined) break;
    after = last;
  }
  const add = (row: 'new' | 'old', delta: 1 | -1) =>
    `insert into ecf_day_amount_counts (${DIMENSIONS.join(', ')}, n)
      values (${tenantOf(row)}, ${day(row)}, ${band(db, `${row}.monto_total_cents`)}, ${delta})
      on conflict (${DIMENSIONS.join(', ')}) do update set n = ecf_day_amount_counts.n + (${delta})`;
  await createRowTrigger(db, { name: 'ecf_day_amount_counts_insert', table: 'ecf', on: 'insert', body: [add('new', 1)] });
  await createRowTrigger(db, { name: 'ecf_day_amount_counts_delete', table: 'ecf', on: 'delete', body: [add('old', -1)] });
  await createRowTrigger(db, {
    name: 'ecf_day_amount_counts_update',
    table: 'ecf',
    on: { update: ['tenant_key', 'issued_at', 'monto_total_cents'] },
    body: [add('old', -1), add('new', 1)],
  });

  await withoutRowid(
    db,
    db.schema
      .createTable('ecf_retry_counts')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('retrying', 'integer', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('ecf_retry_counts_pk', [...RETRY_DIMENSIONS]),
  ).execute();
  const retrying = (row: string) => `case when ${row}.retry is null then 0 else 1 end`;
  // Summed from the day counts, which hold the same dimensions per day: a few thousand rows, not every e-CF.
  await sql.raw(`insert into ecf_retry_counts (${RETRY_DIMENSIONS.join(', ')}, n)
    select ${RETRY_DIMENSIONS.join(', ')}, sum(n) from ecf_day_counts group by ${RETRY_DIMENSIONS.join(', ')}`).execute(db);
  const addRetry = (row: 'new' | 'old', delta: 1 | -1) =>
    `insert into ecf_retry_counts (${RETRY_DIMENSIONS.join(', ')}, n)
      values (${tenantOf(row)}, ${row}.environment, ${row}.type, ${row}.status, ${retrying(row)}, ${delta})
      on conflict (${RETRY_DIMENSIONS.join(', ')}) do update set n = ecf_retry_counts.n + (${delta})`;
  await createRowTrigger(db, { name: 'ecf_retry_counts_insert', table: 'ecf', on: 'insert', body: [addRetry('new', 1)] });
  await createRowTrigger(db, { name: 'ecf_retry_counts_delete', table: 'ecf', on: 'delete', body: [addRetry('old', -1)] });
  await createRowTrigger(db, {
    name: 'ecf_retry_counts_update',
    table: 'ecf',
    on: { update: ['tenant_key', 'environment', 'type', 'status', 'retry'] },
    body: [addRetry('old', -1), addRetry('new', 1)],
  });

  await db.schema.dropIndex('ecf_list_amount_counted').execute();
  if (isSqlite(db)) {
    await db.schema.createIndex('ecf_list_amount_counted').on('ecf').columns(['tenant_key', 'monto_total_cents', 'type', 'status', 'environment', 'issued_at']).execute();
  } else {
    await sql`create index ecf_list_amount_counted on ecf (tenant_key, monto_total_cents, id) include (type, status, environment, issued_at)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ecf_list_amount_counted').execute();
  if (isSqlite(db)) {
    await db.schema.createIndex('ecf_list_amount_counted').on('ecf').columns(['tenant_key', 'monto_total_cents', 'type', 'status', 'environment']).execute();
  } else {
    await sql`create index ecf_list_amount_counted on ecf (tenant_key, monto_total_cents, id) include (type, status, environment)`.execute(db);
  }
  for (const t of ['ecf_retry_counts_insert', 'ecf_retry_counts_delete', 'ecf_retry_counts_update']) await dropRowTrigger(db, t, 'ecf');
  await db.schema.dropTable('ecf_retry_counts').execute();
  for (const t of ['ecf_day_amount_counts_insert', 'ecf_day_amount_counts_delete', 'ecf_day_amount_counts_update']) await dropRowTrigger(db, t, 'ecf');
  await db.schema.dropTable('ecf_day_amount_counts').execute();
}
