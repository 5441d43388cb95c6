// What a bulk load defers, as a restore would: the secondary indexes of the tables it fills and the
// insert triggers that keep the list counts (ecf_counts, ecf_day_counts, ecf_amount_counts,
// ecf_monthly_counts). Inserting into 12 indexes with random keys and four upserts per row was most
// of the load's time; built once the rows are in, an index is one sorted pass, and each count table
// is one GROUP BY over `ecf`. Everything is read from the store itself (sqlite_schema; on
// PostgreSQL pg_index and pg_trigger) and put back from that same text, so the store ends in the
// schema the engine made, whatever the migrations of the day put there.
import type SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';

/** The tables a bench load fills. */
export const LOADED_TABLES = ['ecf', 'ecf_documents', 'ecf_attempts', 'events', 'ecf_fingerprints'] as const;

/** An insert trigger that adds 1 to a count row per new row, and the one statement that fills its table from the rows at once. */
export interface CountTrigger {
  readonly name: string;
  readonly table: string;
  /** The trigger's own text (SQLite), to put it back as it was. */
  readonly sql: string;
  readonly fill: string;
}

export interface Deferred {
  readonly indexes: readonly { readonly name: string; readonly sql: string }[];
  readonly triggers: readonly CountTrigger[];
}

/** Splits `text` at its top-level commas (outside parentheses and quotes). */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  parts.push(text.slice(from).trim());
  return parts;
}

const COUNT_UPSERT = /insert into (\w+) \(([^)]*)\)\s*values \(([\s\S]*?), 1\)\s*on conflict \(([^)]*)\) do update set n = \1\.n \+ \(1\)\s*;?\s*(?:return null;\s*)?end\s*$/i;

/**
 * The statement that fills a count table from every row of `table` at once, made from the body of
 * its insert trigger (`insert into T (dims..., n) values (exprs of new..., 1) on conflict (dims) do
 * update set n = T.n + (1)`): the same expressions over the rows named `new`, grouped. Null when the
 * body is not of that shape: such a trigger stays in place during the load.
 */
export function countFill(body: string, table: string): string | null {
  const m = COUNT_UPSERT.exec(body);
  if (!m) return null;
  const [, counts, columnList, valueList, conflict] = m;
  const columns = columnList!.split(',').map((c) => c.trim());
  const values = topLevel(valueList!);
  if (columns.at(-1) !== 'n' || values.length !== columns.length - 1) return null;
  const dims = columns.slice(0, -1);
  return (
    `insert into ${counts} (${columns.join(', ')}) select ${dims.join(', ')}, count(*) from ` +
    `(select ${values.map((v, i) => `${v} as ${dims[i]}`).join(', ')} from ${table} as new) as g where true group by ${dims.join(', ')} ` +
    `on conflict (${conflict}) do update set n = ${counts}.n + excluded.n`
  );
}

const quoted = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');

// ---- SQLite ----

/** Drops the explicit indexes of the loaded tables and the count triggers on `ecf`, returning what puts them back. */
export function deferSqlite(db: SQLite.Database): Deferred {
  const indexes = db.prepare(`select name, sql from sqlite_schema where type = 'index' and sql is not null and tbl_name in (${quoted(LOADED_TABLES)}) order by rowid`).all() as { name: string; sql: string }[];
  const triggers = (db.prepare(`select name, tbl_name as "table", sql from sqlite_schema where type = 'trigger' and tbl_name in (${quoted(LOADED_TABLES)}) order by rowid`).all() as { name: string; table: string; sql: string }[])
    .filter((t) => /^create trigger \w+ after insert on \w+ begin/i.test(t.sql))
    .flatMap((t) => {
      const fill = countFill(t.sql, t.table);
      return fill ? [{ ...t, fill }] : [];
    });
  db.transaction(() => {
    for (const t of triggers) db.exec(`drop trigger ${t.name}`);
    for (const i of indexes) db.exec(`drop index ${i.name}`);
  })();
  return { indexes, triggers };
}

/** Builds the indexes again (sorted: one pass each), fills the count tables, puts the triggers back. */
export function restoreSqlite(db: SQLite.Database, d: Deferred, onStep?: (step: string) => void): void {
  for (const i of d.indexes) {
    db.exec(i.sql);
    onStep?.(i.name);
  }
  db.transaction(() => {
    for (const t of d.triggers) {
      db.exec(t.fill);
      db.exec(t.sql);
      onStep?.(t.name);
    }
  })();
}

// ---- PostgreSQL ----

export interface DeferredPostgres {
  readonly indexes: readonly { readonly name: string; readonly sql: string }[];
  /** Insert triggers disabled for the load (the trigger and its function stay as they are). */
  readonly triggers: readonly { readonly name: string; readonly table: string; readonly fill: string }[];
}

/**
 * Drops the indexes of the loaded tables that back no constraint (a primary key or unique
 * constraint stays) and disables the count triggers: on PostgreSQL a disabled trigger keeps its
 * definition, so enabling it again is the schema as it was.
 */
export async function deferPostgres(db: Kysely<any>): Promise<DeferredPostgres> {
  const { rows: indexes } = await sql<{ name: string; sql: string }>`
    select c.relname as name, pg_get_indexdef(x.indexrelid) as sql from pg_index x
      join pg_class c on c.oid = x.indexrelid join pg_class t on t.oid = x.indrelid join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = current_schema() and t.relname in (${sql.join(LOADED_TABLES as unknown as string[])})
        and not exists (select 1 from pg_constraint k where k.conindid = x.indexrelid)
      order by c.oid`.execute(db);
  const { rows: found } = await sql<{ name: string; table: string; def: string; body: string }>`
    select g.tgname as name, t.relname as table, pg_get_triggerdef(g.oid) as def, p.prosrc as body from pg_trigger g
      join pg_class t on t.oid = g.tgrelid join pg_namespace n on n.oid = t.relnamespace join pg_proc p on p.oid = g.tgfoid
      where n.nspname = current_schema() and t.relname in (${sql.join(LOADED_TABLES as unknown as string[])}) and not g.tgisinternal and g.tgenabled <> 'D'
      order by g.oid`.execute(db);
  const triggers = found
    .filter((t) => / AFTER INSERT ON /.test(t.def))
    .flatMap((t) => {
      const fill = countFill(t.body.trim(), t.table);
      return fill ? [{ name: t.name, table: t.table, fill }] : [];
    });
  for (const t of triggers) await sql.raw(`alter table ${t.table} disable trigger ${t.name}`).execute(db);
  for (const i of indexes) await sql.raw(`drop index ${i.name}`).execute(db);
  return { indexes, triggers };
}

/** The server's memory for each index build (a session setting; PostgreSQL's own memory, not the loader's). */
const BUILD_MEMORY = '128MB';

export async function restorePostgres(db: Kysely<any>, d: DeferredPostgres, onStep?: (step: string) => void): Promise<void> {
  await db.connection().execute(async (c) => {
    await sql.raw(`set maintenance_work_mem = '${BUILD_MEMORY}'`).execute(c);
    for (const i of d.indexes) {
      await sql.raw(i.sql).execute(c);
      onStep?.(i.name);
    }
    await sql.raw('reset maintenance_work_mem').execute(c);
  });
  await db.transaction().execute(async (tx) => {
    for (const t of d.triggers) {
      await sql.raw(t.fill).execute(tx);
      await sql.raw(`alter table ${t.table} enable trigger ${t.name}`).execute(tx);
      onStep?.(t.name);
    }
  });
}
