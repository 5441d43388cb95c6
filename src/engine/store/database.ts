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
 *
 * SQLite's own wait for the lock sleeps the thread, and with it every request
 * of the event loop, for as long as another process (an `ecf issue` beside
 * the server) or another engine of this process holds the lock; the latter
 * can then never commit, since its next step waits for that same loop. So
 * the wait for BEGIN is done here, between event-loop turns, for as long as
 * the connection's busy timeout says; every other statement keeps SQLite's.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const run = (text: string) => connection.executeQuery(CompiledQuery.raw(text));
    const [{ timeout }] = (await run('pragma busy_timeout')).rows as [{ timeout: number }];
    await run('pragma busy_timeout = 0');
    try {
      const giveUpAt = Date.now() + timeout;
      for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
        try {
          await run('begin immediate');
          return;
        } catch (e) {
          if ((e as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= giveUpAt) throw e;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } finally {
      await run(`pragma busy_timeout = ${timeout}`);
    }
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
