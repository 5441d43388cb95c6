import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../data-dir.js';
import type { Engine } from '../engine-types.js';
import { BUSY_TIMEOUT_MS } from '../store/database.js';

/**
 * Rows as arrays, columns in the select's order, for a verify that reads
 * every row of a long journal: a row object per row (kysely, and
 * better-sqlite3 or pg under it) cost more than the checks made on it. The
 * SQL is written once, with `?` placeholders, for both stores. SQLite: a
 * read-only connection of its own on the store's file, each statement
 * prepared once, in better-sqlite3's raw mode. PostgreSQL: a client of its
 * own, node-postgres's array row mode, integers as numbers as the engine's
 * pool has them. Each statement reads the last commit, as a read of the engine does.
 */
export interface RowReader {
  rows(sql: string, parameters: readonly unknown[]): Promise<unknown[][]>;
  /**
   * The SQL for a blob column's hex text (null stays null): a driver makes a
   * string for a row with less work than a Buffer, and the chain hashes a digest's hex.
   */
  hex(column: string): string;
  close(): Promise<void>;
}

export async function openRowReader(engine: Engine): Promise<RowReader> {
  return engine.databaseUrl ? await postgresReader(engine.databaseUrl) : sqliteReader(join(engine.dataDir, DATABASE_FILE));
}

function sqliteReader(file: string): RowReader {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const statements = new Map<string, SQLite.Statement>();
  return {
    async rows(sql, parameters) {
      let stmt = statements.get(sql);
      if (!stmt) statements.set(sql, (stmt = db.prepare(sql).raw(true)));
      return stmt.all(...parameters) as unknown[][];
    },
    // hex() of null is '', not null.
    hex: (column) => `case when ${column} is null then null else hex(${column}) end`,
    async close() {
      db.close();
    },
  };
}

const INT8 = 20;
const NUMERIC = 1700;

async function postgresReader(url: string): Promise<RowReader> {
  // Loaded only for PostgreSQL, as the engine does.
  const { default: pg } = await import('pg');
  const integer = (text: string): number | string => {
    const n = Number(text);
    return /^-?\d+$/.test(text) && Number.isSafeInteger(n) ? n : text;
  };
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8 || oid === NUMERIC ? integer : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
  };
  const client = new pg.Client({ connectionString: url, types });
  await client.connect();
  // Named: the server parses and plans each statement once for this client.
  const statements = new Map<string, { name: string; text: string }>();
  return {
    async rows(sql, parameters) {
      let stmt = statements.get(sql);
      if (!stmt) {
        let i = 0;
        statements.set(sql, (stmt = { name: `row-reader-${statements.size}`, text: sql.replace(/\?/g, () => `$${++i}`) }));
      }
      return (await client.query<unknown[]>({ ...stmt, values: [...parameters], rowMode: 'array' })).rows;
    },
    hex: (column) => `encode(${column}, 'hex')`,
    async close() {
      await client.end();
    },
  };
}
