// Where a store's bytes go, per table and per index: SQLite's dbstat virtual table (pages in use,
// the file's free pages apart), PostgreSQL's relation sizes (heap, TOAST and each index).
import type SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';

export interface Part {
  readonly name: string;
  /** `table`, `index` or `toast`, and for an index the table it belongs to. */
  readonly kind: string;
  readonly bytes: number;
}

export function sqliteParts(db: SQLite.Database): Part[] {
  const kinds = new Map((db.prepare(`select name, type, tbl_name from sqlite_schema`).all() as { name: string; type: string; tbl_name: string }[]).map((r) => [r.name, r]));
  const rows = db.prepare(`select name, sum(pgsize) as bytes from dbstat group by name`).all() as { name: string; bytes: number }[];
  return rows.map((r) => {
    const k = kinds.get(r.name);
    return { name: r.name, kind: k?.type === 'index' ? `index on ${k.tbl_name}` : 'table', bytes: r.bytes };
  });
}

export async function postgresParts(db: Kysely<any>): Promise<Part[]> {
  const { rows } = await sql<{ name: string; kind: string; bytes: string }>`
    select c.relname as name, 'table' as kind, pg_relation_size(c.oid) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r'
    union all
    select c.relname || ' (toast)', 'toast', pg_total_relation_size(c.reltoastrelid) from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r' and c.reltoastrelid <> 0
    union all
    select i.relname, 'index on ' || t.relname, pg_relation_size(i.oid) from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace where n.nspname = current_schema()`.execute(db);
  return rows.map((r) => ({ name: r.name, kind: r.kind, bytes: Number(r.bytes) }));
}

/** The parts worth a line (at least 1 byte per e-CF), largest first, with bytes per e-CF. */
export function printParts(parts: readonly Part[], rows: number, label: string): number {
  const total = parts.reduce((s, p) => s + p.bytes, 0);
  console.log(`${label}: ${(total / 2 ** 20).toFixed(0)} MiB in use = ${Math.round(total / rows).toLocaleString('en')} bytes per e-CF`);
  for (const p of [...parts].sort((a, b) => b.bytes - a.bytes)) {
    const per = p.bytes / rows;
    if (per >= 1) console.log(`  ${p.name.padEnd(40)} ${p.kind.padEnd(26)} ${Math.round(per).toLocaleString('en').padStart(7)} bytes per e-CF`);
  }
  return total;
}
