import { PostgresAdapter, sql, type CreateTableBuilder, type Kysely, type RawBuilder } from 'kysely';

/**
 * The dialect-specific pieces of the migrations. Each migration is written
 * once; what SQLite and PostgreSQL spell differently is asked for here.
 * Column types are mapped for PostgreSQL by store/postgres-ddl.ts.
 *
 * Frozen with the migrations: this file imports kysely only, never the
 * engine, so a migration runs the same SQL however the live code changes
 * later. What it needs from the store (the dialect test, the row key) is a
 * copy, not an import.
 */

/** A copy of store/dialect.ts `dialectOf`, as it was when these migrations were written. */
function dialectOf(db: Kysely<any>): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** A copy of store/functions.ts `rowKey`: SQLite's rowid, PostgreSQL's id, to page through a table in key order. */
export function rowKey(db: Kysely<any>): { readonly ref: RawBuilder<number | string>; readonly first: number | string } {
  return dialectOf(db) === 'sqlite' ? { ref: sql`rowid`, first: 0 } : { ref: sql`id`, first: '' };
}

/** SQLite keeps a small table keyed by its primary key in that key's b-tree; PostgreSQL has no such storage choice. */
export function withoutRowid<T extends string, C extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T, C>): CreateTableBuilder<T, C> {
  return dialectOf(db) === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table;
}

/** The Dominican month (`yyyy-MM`, UTC-4) of an ISO instant held in `column` (SQL text, e.g. `new.issued_at`). */
export function dominicanMonth(db: Kysely<unknown>, column: string): string {
  return dialectOf(db) === 'sqlite'
    ? `strftime('%Y-%m', substr(${column}, 1, 19), '-4 hours')`
    : `to_char(substr(${column}, 1, 19)::timestamp - interval '4 hours', 'YYYY-MM')`;
}

export interface RowTrigger {
  readonly name: string;
  readonly table: string;
  /** `update` names the columns whose change fires it, and only a real change does. */
  readonly on: 'insert' | 'delete' | { readonly update: readonly string[] };
  /** Statements run for each row, referring to `new.` and `old.`. */
  readonly body: readonly string[];
}

/**
 * An after-row trigger: SQLite's `create trigger ... begin ... end`; on
 * PostgreSQL a plpgsql function holding the same statements and a trigger
 * that calls it.
 */
export async function createRowTrigger(db: Kysely<unknown>, t: RowTrigger): Promise<void> {
  const changed = typeof t.on === 'object' ? t.on.update : undefined;
  const event = changed ? `update of ${changed.join(', ')}` : t.on;
  if (dialectOf(db) === 'sqlite') {
    const when = changed ? `\n    when ${changed.map((c) => `old.${c} is not new.${c}`).join(' or ')}\n    ` : ' ';
    await sql.raw(`create trigger ${t.name} after ${event} on ${t.table}${when}begin ${t.body.join('; ')}; end`).execute(db);
    return;
  }
  await sql.raw(`create function ${t.name}() returns trigger language plpgsql as $$
    begin ${t.body.join('; ')}; return null; end $$`).execute(db);
  const when = changed ? ` when (${changed.map((c) => `old.${c} is distinct from new.${c}`).join(' or ')})` : '';
  await sql.raw(`create trigger ${t.name} after ${event} on ${t.table} for each row${when} execute function ${t.name}()`).execute(db);
}

export async function dropRowTrigger(db: Kysely<unknown>, name: string, table: string): Promise<void> {
  if (dialectOf(db) === 'sqlite') {
    await sql.raw(`drop trigger ${name}`).execute(db);
    return;
  }
  await sql.raw(`drop trigger ${name} on ${table}`).execute(db);
  await sql.raw(`drop function ${name}()`).execute(db);
}

/** The Dominican day (`yyyy-MM-dd`, UTC-4) of an ISO instant held in `column` (SQL text, e.g. `new.issued_at`). */
export function dominicanDay(db: Kysely<unknown>, column: string): string {
  return dialectOf(db) === 'sqlite'
    ? `strftime('%Y-%m-%d', substr(${column}, 1, 19), '-4 hours')`
    : `to_char(substr(${column}, 1, 19)::timestamp - interval '4 hours', 'YYYY-MM-DD')`;
}

/** The Dominican day (`yyyy-MM-dd`, UTC-4) of an instant held in `column` as integer milliseconds (from migration 0022 on). */
export function dominicanDayOfMillis(db: Kysely<unknown>, column: string): string {
  return dialectOf(db) === 'sqlite'
    ? `strftime('%Y-%m-%d', ${column} / 1000 - 14400, 'unixepoch')`
    : `to_char(timestamp 'epoch' + (${column} - 14400000) * interval '1 millisecond', 'YYYY-MM-DD')`;
}

/** Whether this is SQLite, where every index ends in the rowid: an index need not repeat a tie-break column. */
export function isSqlite(db: Kysely<any>): boolean {
  return dialectOf(db) === 'sqlite';
}
