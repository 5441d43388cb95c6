import { CompiledQuery, type Compilable, type Insertable, type Kysely } from 'kysely';
import { executeCompiled, reuseReadUntilCommit } from './database.js';
import { dialectOf, type StoreDialect } from './dialect.js';
import type { Database } from './schema.js';

/**
 * kysely builds and compiles a query anew on every call: 20–40 µs for a
 * small select, about 40 µs for the 30-column e-CF insert, more than SQLite
 * takes to run them. The queries on the issuing path never change shape, so
 * they are built once per dialect with named placeholders and afterwards
 * only given fresh values.
 */

type Executor = Kysely<Database>;

/** Stands for the argument of that name while the query is built once. */
class Placeholder {
  constructor(readonly name: string) {}
}

interface Template {
  readonly sql: string;
  /** Per parameter: a Placeholder to fill from the arguments, or a constant written into the query. */
  readonly slots: readonly unknown[];
}

function compileOnce(db: Executor, build: (db: Executor) => Compilable<unknown>): Template {
  const { sql, parameters } = build(db).compile();
  return { sql, slots: parameters };
}

function fill(template: Template, args: Readonly<Record<string, unknown>>): CompiledQuery {
  const parameters = template.slots.map((slot) => {
    if (!(slot instanceof Placeholder)) return slot;
    const value = args[slot.name];
    if (value === undefined) throw new Error(`prepared query: no value for ${slot.name}`);
    return value;
  });
  return CompiledQuery.raw(template.sql, parameters);
}

/**
 * A query of fixed shape. `build` must not look at the values it is given
 * (they are placeholders when it runs), so no branching on them and no
 * `in` lists whose length varies. `reuseUntilCommit`: a read outside any
 * transaction on the SQLite store may be answered from memory until the
 * store next changes (see SqliteStore.keptRead).
 */
export function prepared<A extends Record<string, unknown>, R>(
  build: (db: Executor, args: A) => Compilable<R>,
  options: { readonly reuseUntilCommit?: boolean } = {},
): (db: Executor, args: A) => Promise<R[]> {
  // The compiled text depends on the dialect only.
  const templates = new Map<StoreDialect, Template>();
  const placeholders = new Proxy({}, { get: (_, name) => new Placeholder(String(name)) }) as A;
  return async (db, args) => {
    const dialect = dialectOf(db);
    let template = templates.get(dialect);
    if (!template) {
      templates.set(dialect, (template = compileOnce(db, (d) => build(d, placeholders))));
      if (options.reuseUntilCommit) reuseReadUntilCommit(template.sql);
    }
    return (await executeCompiled<R>(db, fill(template, args))).rows;
  };
}

const insertTemplates = new Map<StoreDialect, Map<string, Template>>();

/** Inserts one row; the statement is compiled once per table and set of columns. */
export async function insertRow<T extends keyof Database & string>(db: Executor, table: T, row: Insertable<Database[T]>): Promise<void> {
  await insertRowReturning(db, table, row, null);
}

/** As insertRow, answering the value the store gave column `returning` (a generated key). */
export async function insertRowReturning<T extends keyof Database & string>(db: Executor, table: T, row: Insertable<Database[T]>, returning: string | null): Promise<unknown> {
  const values = row as Record<string, unknown>;
  const columns = Object.keys(values).filter((c) => values[c] !== undefined);
  const dialect = dialectOf(db);
  let byShape = insertTemplates.get(dialect);
  if (!byShape) insertTemplates.set(dialect, (byShape = new Map()));
  const shape = `${table}(${columns.join(',')})${returning ?? ''}`;
  let template = byShape.get(shape);
  if (!template) {
    const placeholders = Object.fromEntries(columns.map((c) => [c, new Placeholder(c)]));
    const build = (d: Executor) => {
      const insert = d.insertInto(table).values(placeholders as never);
      return returning ? insert.returning(returning as never) : insert;
    };
    byShape.set(shape, (template = compileOnce(db, build)));
  }
  const result = await executeCompiled<Record<string, unknown>>(db, fill(template, values));
  return returning ? result.rows[0]?.[returning] : undefined;
}
