import { sql, type Kysely } from 'kysely';
import { createRowTrigger, dropRowTrigger, isSqlite, rowKey, withoutRowid } from './ddl.js';

/**
 * Measured with bench/list-million.bench.ts at ten million e-CF, two list
 * answers still counted their `totalCount` by reading matches:
 *
 * - A Search by buyer name counted every e-CF whose name starts with it
 *   (a name common to a tenth of the buyers: 677,000 index entries, 25 ms,
 *   p99 180 ms). `ecf_name_counts` keeps the number of e-CF per tenant and
 *   buyer name key (the search key of ecf/search-key.ts), so such a count
 *   sums one row per distinct buyer name in the prefix's range. An e-CF
 *   without a buyer name counts under the empty key, which no prefix search
 *   reads (its prefix is never empty there).
 * - MinAmount/MaxAmount counted the e-CF of an edge band from the amount
 *   index: a band is a tenth of a decade (ecf/amount-band.ts), up to 90,000
 *   e-CF there (5 ms). `ecf_fine_amount_counts` keeps the number per tenant
 *   and fine band (three leading digits, 900 a decade) with no other
 *   dimension, so a count with amount bounds alone sums at most a few
 *   thousand rows and counts a hundredth of a decade at each edge.
 *
 * Both are kept by triggers like the other counts, filled on SQLite in
 * batches of rows, so nothing grows with the store, and on PostgreSQL by one
 * grouped insert (the server spills to disk as it needs). Neither holds type, status,
 * environment or day: those multiply the rows; such lists keep their paths.
 *
 * On SQLite, `ecf_search_encf` also holds `status`: a Search by e-NCF with a
 * Status read each match's row for its status (up to 2,000 rows for a
 * ten-character prefix, p99 13 ms at ten million); now the index answers it
 * alone, for about 9 bytes per e-CF.
 */
const BATCH = 20_000;

/** A copy of ecf/amount-band.ts `amountBand(cents, 3)` in SQL: digits * 1000 + the first three digits; 0 to 99 as they are; -1 below zero. */
function fineBand(db: Kysely<unknown>, cents: string): string {
  const text = isSqlite(db) ? `cast(${cents} as text)` : `(${cents})::text`;
  const three = isSqlite(db) ? `cast(substr(${text}, 1, 3) as integer)` : `substr(${text}, 1, 3)::integer`;
  return `case when ${cents} < 0 then -1 when ${cents} < 100 then ${cents} else length(${text}) * 1000 + ${three} end`;
}

interface KeptCount {
  readonly table: string;
  readonly column: string;
  readonly type: 'text' | 'integer';
  /** The column's value for a row of `ecf` named `row`. */
  readonly of: (db: Kysely<unknown>, row: string) => string;
  /** The columns of `ecf` whose change moves a row to another count. */
  readonly moves: readonly string[];
}

const COUNTS: readonly KeptCount[] = [
  { table: 'ecf_name_counts', column: 'name_key', type: 'text', of: (_, row) => `coalesce(${row}.buyer_name_key, '')`, moves: ['tenant_key', 'buyer_name_key'] },
  { table: 'ecf_fine_amount_counts', column: 'band', type: 'integer', of: (db, row) => fineBand(db, `${row}.monto_total_cents`), moves: ['tenant_key', 'monto_total_cents'] },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const key = rowKey(db);
  for (const c of COUNTS) {
    await withoutRowid(
      db,
      db.schema
        .createTable(c.table)
        .addColumn('tenant_key', 'integer', (col) => col.notNull())
        .addColumn(c.column, c.type, (col) => col.notNull())
        .addColumn('n', 'integer', (col) => col.notNull())
        .addPrimaryKeyConstraint(`${c.table}_pk`, ['tenant_key', c.column]),
    ).execute();
    const upsert = `on conflict (tenant_key, ${c.column}) do update set n = ${c.table}.n + excluded.n`;
    if (!isSqlite(db)) {
      // PostgreSQL groups on the server, spilling to disk as it needs: one statement. Batches there
      // would update each name's row once per batch, leaving a dead row version each time (471,131
      // beside 20,001 live at a million e-CF), and no statistics until autovacuum came by.
      await sql`insert into ${sql.raw(c.table)} (tenant_key, ${sql.raw(c.column)}, n)
        select e.tenant_key, ${sql.raw(c.of(db, 'e'))}, count(*) from ecf e group by e.tenant_key, ${sql.raw(c.of(db, 'e'))}`.execute(db);
      await sql`analyze ${sql.raw(c.table)}`.execute(db);
    }
    for (let after = key.first; isSqlite(db); ) {
      const { rows } = await sql<{ k: number | string }>`select ${key.ref} as k from ecf where ${key.ref} > ${after} order by ${key.ref} limit 1 offset ${BATCH - 1}`.execute(db);
      const last = rows[0]?.k;
      const range = last === undefined ? sql`${key.ref} > ${after}` : sql`${key.ref} > ${after} and ${key.ref} <= ${last}`;
      await sql`insert into ${sql.raw(c.table)} (tenant_key, ${sql.raw(c.column)}, n)
        select e.tenant_key, ${sql.raw(c.of(db, 'e'))}, count(*) from ecf e where ${range}
        group by e.tenant_key, ${sql.raw(c.of(db, 'e'))} ${sql.raw(upsert)}`.execute(db);
      if (last === undefined) break;
      after = last;
    }
    const add = (row: 'new' | 'old', delta: 1 | -1) =>
      `insert into ${c.table} (tenant_key, ${c.column}, n)
        values (${row}.tenant_key, ${c.of(db, row)}, ${delta})
        on conflict (tenant_key, ${c.column}) do update set n = ${c.table}.n + (${delta})`;
    await createRowTrigger(db, { name: `${c.table}_insert`, table: 'ecf', on: 'insert', body: [add('new', 1)] });
    await createRowTrigger(db, { name: `${c.table}_delete`, table: 'ecf', on: 'delete', body: [add('old', -1)] });
    await createRowTrigger(db, { name: `${c.table}_update`, table: 'ecf', on: { update: c.moves }, body: [add('old', -1), add('new', 1)] });
  }
  if (isSqlite(db)) await encfIndex(db, ['encf', 'issued_at', 'monto_total_cents', 'status']);
}

async function encfIndex(db: Kysely<unknown>, columns: readonly string[]): Promise<void> {
  await db.schema.dropIndex('ecf_search_encf').execute();
  await db.schema.createIndex('ecf_search_encf').on('ecf').columns(['tenant_key', ...columns]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await encfIndex(db, ['encf', 'issued_at', 'monto_total_cents']);
  for (const c of [...COUNTS].reverse()) {
    for (const t of ['insert', 'delete', 'update']) await dropRowTrigger(db, `${c.table}_${t}`, 'ecf');
    await db.schema.dropTable(c.table).execute();
  }
}
