import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './schema.js';
import type { Db } from './database.js';

const INT8 = 20;
const NUMERIC = 1700;

/**
 * The engine's integers (cents, e-NCF numbers, counters) are JavaScript
 * numbers, as SQLite returns them. node-postgres returns int8 (every integer
 * column here, count(*)) and numeric (sum of an int8) as strings; integers
 * that fit a double come back as numbers. A value past 2^53 or a fraction
 * stays a string rather than lose digits silently: no column holds one.
 */
function integerOrString(text: string): number | string {
  if (!/^-?\d+$/.test(text)) return text;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC ? integerOrString : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  /** Connections the process keeps; a job worker needs few, the server more. */
  readonly maxConnections?: number;
}

/**
 * Opens a pool on a PostgreSQL database. Transactions run at read committed:
 * the statements that read before they write take row locks or lean on
 * unique constraints (see locking.ts), never on a single writer.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, types });
  // An idle connection the server drops (restart, failover) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

const UNDEFINED_DATABASE = '3D000';
const DUPLICATE_DATABASE = '42P04';

/**
 * Creates the URL's database when the server has none of that name, as
 * SQLite creates its file on first open (the role needs CREATEDB). Another
 * process creating it at the same moment is as good.
 */
export async function ensurePostgresDatabase(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return;
  } catch (e) {
    if ((e as { code?: string }).code !== UNDEFINED_DATABASE) throw e;
  } finally {
    await probe.end().catch(() => {});
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: target.toString() });
  await admin.connect();
  try {
    await admin.query(`create database ${pg.escapeIdentifier(name)}`);
  } catch (e) {
    if ((e as { code?: string }).code !== DUPLICATE_DATABASE) throw e;
  } finally {
    await admin.end();
  }
}
