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
const STATEMENT_CACHE_SIZE = 500;

/**
 * kysely's SQLite driver prepares every query anew; preparing costs about as
 * much as running a small query. The store's queries repeat, so prepared
 * statements are kept by SQL text (the oldest dropped past the cache size).
 * One connection runs one query at a time, so sharing a statement is safe.
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') return Reflect.get(target, prop, receiver) as unknown;
      return (source: string) => {
        let stmt = cache.get(source);
        if (!stmt) {
          stmt = prepare(source);
          if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
          cache.set(source, stmt);
        }
        return stmt;
      };
    },
  });
}

export interface OpenDatabaseOptions {
  /**
   * false when another connection checkpoints the WAL (a long-running
   * server's checkpointer thread); short-lived processes keep SQLite's own.
   */
  readonly autoCheckpoint?: boolean;
}

/** Opens (creating if needed) the SQLite file with WAL, a busy timeout and foreign keys on. */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  if (options.autoCheckpoint === false) sqlite.pragma('wal_autocheckpoint = 0');
  return new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
}

/** One transaction per business fact: everything inside commits together or not at all. */
export function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}
