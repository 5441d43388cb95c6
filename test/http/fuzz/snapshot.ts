import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Engine } from '../../../src/engine/engine.js';

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
  const tables = new Map<string, string>();
  const hash = createHash('sha256');
  for (const name of await tablesOf(engine)) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(engine.db);
    const text = rows.rows
      .map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, cell(v)])))
      .sort()
      .join('\n');
    tables.set(name, text);
    hash.update(name).update('\0').update(text).update('\0');
  }
  return { hash: hash.digest('hex'), tables };
}

/** The tables whose rows differ between two snapshots. */
export function changedTables(before: StoreSnapshot, after: StoreSnapshot): string[] {
  return [...after.tables.keys()].filter((t) => before.tables.get(t) !== after.tables.get(t));
}
