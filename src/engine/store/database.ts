import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type Transaction,
} from 'kysely';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

/**
 * Writers take the write lock when the transaction begins. A deferred BEGIN
 * that later upgrades to a write fails with SQLITE_BUSY at once in WAL mode,
 * whatever the busy timeout; BEGIN IMMEDIATE waits its turn instead.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

export const BUSY_TIMEOUT_MS = 5000;

/** Opens (creating if needed) the SQLite file with WAL, a busy timeout and foreign keys on. */
export function openDatabase(file: string): Db {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  return new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
}

/** One transaction per business fact: everything inside commits together or not at all. */
export function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}
