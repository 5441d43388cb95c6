// The big-store bench's PostgreSQL load: the same rows and packed documents as the SQLite load
// (bench/ecf-rows.ts, bench/load-batches.ts, bench/packing.ts), each table of a batch inserted by
// one statement that unnests one array per column (one parse and one round trip per table and
// batch, where kysely's multi-row VALUES built and sent a parameter per value), two batches in
// flight (when the count triggers wait) so PostgreSQL works on one while this thread makes the
// next. As a restore would, the indexes and count triggers wait until the rows are in
// (bench/deferred-upkeep.ts).
import { sql, type Kysely } from 'kysely';
import { deferPostgres, restorePostgres } from './deferred-upkeep.js';
import { rowMaker, type RowsOptions } from './ecf-rows.js';
import { rowBatches, rowSampler, type RowSamples, type Tables } from './load-batches.js';
import { packingWorkers } from './packing.js';
import type { CertificateIds } from './stored-documents.js';

export interface PostgresLoad {
  readonly rows: RowsOptions;
  /** Null leaves the documents out. */
  readonly certificates: CertificateIds | null;
  readonly workers: number;
  readonly batch?: number;
  /** As bench/bulk-load.ts: false keeps the indexes and count triggers through the load. */
  readonly deferUpkeep?: boolean;
  readonly samples?: number;
}

export interface PostgresLoaded extends RowSamples {
  readonly seconds: number;
  /** Of `seconds`: the indexes built, the counts filled and VACUUM ANALYZE. */
  readonly restoreSeconds: number;
  readonly batch: number;
}

/** Each column's SQL type, as unnest's arrays need them. */
async function columnTypes(db: Kysely<any>, table: string): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; type: string }>`
    select a.attname as name, format_type(a.atttypid, a.atttypmod) as type from pg_attribute a
      join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relname = ${table} and a.attnum > 0 and not a.attisdropped`.execute(db);
  return new Map(rows.map((r) => [r.name, r.type]));
}

export async function bulkLoadPostgres(db: Kysely<any>, o: PostgresLoad, onProgress?: (done: number) => void | Promise<void>): Promise<PostgresLoaded> {
  const batch = o.batch ?? 1_000;
  const types = new Map<string, Map<string, string>>();
  const insert = async (tx: Kysely<any>, table: string, rows: Record<string, unknown>[]) => {
    if (!rows.length) return;
    const typed = types.get(table) ?? (types.set(table, await columnTypes(db, table)), types.get(table)!);
    const columns = Object.keys(rows[0]!);
    const arrays = columns.map((c) => {
      const type = typed.get(c);
      if (!type) throw new Error(`${table} has no column ${c}`);
      return sql`${rows.map((r) => r[c] ?? null)}::${sql.raw(type)}[]`;
    });
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) select * from unnest(${sql.join(arrays)})`.execute(tx);
  };
  const insertBatch = (tables: Tables) =>
    db.transaction().execute(async (tx) => {
      for (const [table, rows] of Object.entries(tables)) await insert(tx, table, rows);
    });
  const deferred = o.deferUpkeep === false ? null : await deferPostgres(db);
  const packing = o.certificates ? packingWorkers(o.certificates, o.workers) : null;
  const { samples, onRow } = rowSampler(o.rows.rows, o.samples);
  const start = performance.now();
  let inFlight: Promise<void> | null = null;
  try {
    for await (const b of rowBatches({ rows: o.rows.rows, batch, make: rowMaker(o.rows), packing, onRow })) {
      // One batch goes to the server while the next is made: at most two in flight. With the count
      // triggers kept, two transactions would upsert the same count rows in their own orders and
      // deadlock: then one at a time.
      const previous = inFlight;
      inFlight = insertBatch(b.tables);
      inFlight.catch(() => {});
      await previous;
      if (!deferred) await inFlight;
      await onProgress?.(b.from);
    }
    await inFlight;
    await onProgress?.(o.rows.rows);
  } finally {
    await inFlight?.catch(() => {});
    await packing?.close();
  }
  const restoreStart = performance.now();
  if (deferred) await restorePostgres(db, deferred);
  await sql`vacuum analyze`.execute(db);
  const end = performance.now();
  return { ...samples, seconds: (end - start) / 1000, restoreSeconds: (end - restoreStart) / 1000, batch };
}
