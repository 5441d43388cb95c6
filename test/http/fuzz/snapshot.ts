import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Engine } from '../../../src/engine/engine-types.js';

/**
 * Everything stored, as one hash: every row of every table, tables in name
 * order, rows sorted by their text, bytes as hex. Cheap on a small store, so
 * it runs after each fuzzed request.
 */
export interface StoreSnapshot {
  readonly hash: string;
  /** Each table's dump, to name the tables that changed. */
  readonly tables: ReadonlyMap<string, string>;
}

const tableNames = new WeakMap<Engine, string[]>();

async function tablesOf(engine: Engine): Promise<string[]> {
  const known = tableNames.get(engine);
  if (known) return known;
  const rows =
    engine.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(engine.db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`.execute(engine.db);
  const names = rows.rows.map((r) => r.name);
  tableNames.set(engine, names);
  return names;
}

/** Bytes by their hash: stored documents run to megabytes, and only their change matters here. */
const cell = (v: unknown): unknown =>
  v instanceof Uint8Array ? `sha256:${createHash('sha256').update(v).digest('hex')}` : v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? String(v) : v;

export async function snapshotStore(engine: Engine): Promise<StoreSnapshot> {
  const names = await tablesOf(engine);
  const texts = engine.dialect === 'sqlite' ? await sqliteTables(engine, names) : await postgresTables(engine, names);
  const tables = new Map<string, string>();
  const hash = createHash('sha256');
  names.forEach((name, i) => {
    tables.set(name, texts[i]!);
    hash.update(name).update('\0').update(texts[i]!).update('\0');
  });
  return { hash: hash.digest('hex'), tables };
}

async function sqliteTables(engine: Engine, names: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const name of names) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(engine.db);
    out.push(
      rows.rows
        .map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, cell(v)])))
        .sort()
        .join('\n'),
    );
  }
  return out;
}

/** PostgreSQL hashes each table itself, all in one round trip: thirty queries per request would dominate the run. */
async function postgresTables(engine: Engine, names: readonly string[]): Promise<string[]> {
  // Rows are hashed one by one and their hashes sorted: sorting the rows' text would sort megabytes of stored documents.
  const parts = names.map((name, i) => sql`select ${i}::int as i, md5(coalesce(string_agg(r.h, '' order by r.h), '')) as h from (select md5(t::text) as h from ${sql.table(name)} t) r`);
  const rows = await sql<{ i: number; h: string }>`${sql.join(parts, sql` union all `)}`.execute(engine.db);
  const out = names.map(() => '');
  for (const r of rows.rows) out[r.i] = r.h;
  return out;
}

/** The tables whose rows differ between two snapshots. */
export function changedTables(before: StoreSnapshot, after: StoreSnapshot): string[] {
  return [...after.tables.keys()].filter((t) => before.tables.get(t) !== after.tables.get(t));
}
