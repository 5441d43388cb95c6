import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteAdapter, SqliteDialect, type DatabaseConnection, type DialectAdapter, type Driver, type QueryResult, type Transaction } from 'kysely';
import { restartPending, type RestartSignal } from './checkpointer.js';
import { restrictStoreFiles } from './file-modes.js';
import { InlineLimits } from './inline-limits.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

export const BUSY_TIMEOUT_MS = 5000;
const MAX_YIELD_TO_RESTART_MS = 100;
const STATEMENT_CACHE_SIZE = 500;
const KEPT_READS = 1000;

// The SQL texts of the reads whose rows may be reused until the store changes (SqliteStore.keptRead).
const reusableReads = new Set<string>();
/** Marks a read whose rows the SQLite store may answer again from memory until the next commit. */
export const reuseReadUntilCommit = (sql: string): void => void reusableReads.add(sql);

/**
 * Two connections to the one file. Writes and transactions take the writer,
 * one holder at a time. A plain read outside any transaction (a select, not
 * a pragma, on a connection that has not written) takes the reader instead:
 * in WAL mode it reads the last commit at once, where on the writer it would
 * wait for the whole transaction running at the time (a group commit of
 * many e-CF). A held connection that writes stays on the writer until it is
 * released, so what it reads afterwards includes its own writes.
 */
class SqliteStore {
  readonly #file: string;
  readonly #writer: SQLite.Database;
  #reader: SQLite.Database | undefined;
  // kysely's driver prepared every query anew; preparing costs about as much as running a small query.
  readonly #writes = new StatementCache();
  readonly #reads = new StatementCache<SQLite.Statement | null>();
  #writerHeld = false;
  readonly #waiting: (() => void)[] = [];
  #dataVersion: SQLite.Statement | undefined;
  #keptVersion = -1;
  readonly #kept = new Map<string, unknown[]>();

  constructor(file: string, writer: SQLite.Database) {
    this.#file = file;
    this.#writer = writer;
  }

  /** The reader's statement for `text` when it is a plain read; null otherwise. */
  readStatement(text: string): SQLite.Statement | null {
    return this.#reads.get(text, () => {
      if (/^\s*pragma/i.test(text)) return null;
      const stmt = this.#readerConnection().prepare(text);
      return stmt.reader && stmt.readonly ? stmt : null;
    });
  }

  /**
   * The rows of a reusable read, answered from memory until the reader's
   * `data_version` moves, which SQLite does whenever another connection (the
   * writer of this process included) commits. The version is read before the
   * rows: rows read after a commit that raced them are dropped at the next
   * look. Each caller gets its own copies. The issuing path reads the
   * tenant, its profile, settings and certificates on every request, and
   * they change a few times a year.
   */
  keptRead(stmt: SQLite.Statement, text: string, parameters: readonly unknown[]): unknown[] {
    const version = (this.#dataVersion ??= this.#readerConnection().prepare('pragma data_version').pluck()).get() as number;
    if (version !== this.#keptVersion) {
      this.#kept.clear();
      this.#keptVersion = version;
    }
    const key = `${text}\u0000${JSON.stringify(parameters)}`;
    let rows = this.#kept.get(key);
    if (!rows) {
      rows = stmt.all(parameters);
      if (this.#kept.size >= KEPT_READS) this.#kept.clear();
      this.#kept.set(key, rows);
    }
    return rows.map((row) => ({ ...(row as object) }));
  }

  /** The rows of a plain read on the reader: kept ones for a read marked reuseReadUntilCommit. */
  readRows<R>(stmt: SQLite.Statement, text: string, parameters: readonly unknown[]): R[] {
    return (reusableReads.has(text) ? this.keptRead(stmt, text, parameters) : stmt.all(parameters)) as R[];
  }

  writeStatement(text: string): SQLite.Statement {
    return this.#writes.get(text, () => this.#writer.prepare(text));
  }

  /** First come, first served: a waiting single write is never passed over by the next group commit. */
  async lockWriter(): Promise<void> {
    if (!this.#writerHeld) {
      this.#writerHeld = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  unlockWriter(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#writerHeld = false;
  }

  close(): void {
    this.#reader?.close();
    this.#writer.close();
  }

  // Opened on first use: a CLI call that only writes never pays for it.
  #readerConnection(): SQLite.Database {
    if (!this.#reader) {
      const reader = new SQLite(this.#file, { fileMustExist: true });
      reader.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      reader.pragma('query_only = 1');
      this.#reader = reader;
    }
    return this.#reader;
  }
}

class StatementCache<S = SQLite.Statement> {
  readonly #byText = new Map<string, S>();
  get(text: string, prepare: () => S): S {
    let stmt = this.#byText.get(text);
    if (stmt === undefined) {
      stmt = prepare();
      if (this.#byText.size >= STATEMENT_CACHE_SIZE) this.#byText.delete(this.#byText.keys().next().value!);
      this.#byText.set(text, stmt);
    }
    return stmt;
  }
}

function run<R>(stmt: SQLite.Statement, parameters: readonly unknown[]): QueryResult<R> {
  if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

class RoutedConnection implements DatabaseConnection {
  readonly #store: SqliteStore;
  #onWriter = false;
  constructor(store: SqliteStore) {
    this.#store = store;
  }

  async executeQuery<R>({ sql, parameters }: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.#onWriter) {
      const read = this.#store.readStatement(sql);
      if (read) return { rows: this.#store.readRows<R>(read, sql, parameters) };
      await this.takeWriter();
    }
    return run<R>(this.#store.writeStatement(sql), parameters);
  }

  async *streamQuery<R>({ sql, parameters }: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    await this.takeWriter();
    for (const row of this.#store.writeStatement(sql).iterate(parameters)) yield { rows: [row as R] };
  }

  async takeWriter(): Promise<void> {
    if (this.#onWriter) return;
    await this.#store.lockWriter();
    this.#onWriter = true;
  }

  release(): void {
    if (!this.#onWriter) return;
    this.#onWriter = false;
    this.#store.unlockWriter();
  }
}

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
class RoutedSqliteDriver implements Driver {
  readonly #store: SqliteStore;
  readonly #restartSignal: RestartSignal | undefined;
  constructor(store: SqliteStore, restartSignal: RestartSignal | undefined) {
    this.#store = store;
    this.#restartSignal = restartSignal;
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.#store);
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).takeWriter();
    await this.#yieldToRestart();
    const exec = (text: string) => connection.executeQuery(CompiledQuery.raw(text));
    const [{ timeout }] = (await exec('pragma busy_timeout')).rows as [{ timeout: number }];
    await exec('pragma busy_timeout = 0');
    try {
      const giveUpAt = Date.now() + timeout;
      for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
        try {
          await exec('begin immediate');
          return;
        } catch (e) {
          if ((e as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= giveUpAt) throw e;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } finally {
      await exec(`pragma busy_timeout = ${timeout}`);
    }
  }
  /** A pending WAL RESTART gets the gap it waits for, up to a bound: issuing never stops for long. */
  async #yieldToRestart(): Promise<void> {
    const signal = this.#restartSignal;
    if (!signal) return;
    const until = Date.now() + MAX_YIELD_TO_RESTART_MS;
    while (restartPending(signal) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as RoutedConnection).release();
  }
  async destroy(): Promise<void> {
    this.#store.close();
  }
}

// The store behind each SQLite kysely instance, by its adapter: a transaction of that instance shares it.
const storesByAdapter = new WeakMap<object, SqliteStore>();
// The instances openDatabase made, not one bound to a connection (whose reads may have to see its writes).
const roots = new WeakSet<Kysely<Database>>();
// Transactions of inTransaction whose work has not settled. A transaction used after that goes
// through kysely, which refuses it once committed or rolled back.
const openTransactions = new WeakSet<Kysely<Database>>();

/**
 * Runs a compiled query on SQLite directly, where RoutedConnection would
 * send it: a statement of an open transaction on the writer (a SQLite
 * transaction holds it from its BEGIN to its end), a plain read of the
 * instance openDatabase made on the reader. kysely's executor wraps each
 * statement in a new executor, a connection (a queue on it in a
 * transaction) and half a dozen promises: on the issuing path about as much
 * time as SQLite takes for the statement. Undefined for anything else, and
 * for an instance with plugins of its own: the caller takes kysely's way.
 */
function runOnSqlite<R>(db: Kysely<Database>, query: CompiledQuery): QueryResult<R> | undefined {
  const executor = db.getExecutor();
  const store = storesByAdapter.get(executor.adapter);
  if (!store || !executor.plugins.every((plugin) => plugin instanceof InlineLimits)) return undefined;
  if (openTransactions.has(db)) return run<R>(store.writeStatement(query.sql), query.parameters);
  if (!roots.has(db)) return undefined;
  const read = store.readStatement(query.sql);
  return read ? { rows: store.readRows<R>(read, query.sql, query.parameters) } : undefined;
}

/** Runs a compiled query: on SQLite without kysely's executor where it can (runOnSqlite). */
export async function executeCompiled<R>(db: Kysely<Database>, query: CompiledQuery): Promise<QueryResult<R>> {
  return runOnSqlite<R>(db, query) ?? (await db.executeQuery<R>(query));
}

/**
 * SQLite's DDL is transactional, though kysely's adapter says otherwise to be safe; saying so
 * makes kysely's migrator run all pending migrations in one transaction, which begins with
 * BEGIN IMMEDIATE here. Without it, SQLite has no migration lock (kysely's is a no-op there), and
 * two processes opening a new store at the same moment both ran migrations statement by statement:
 * the slower failed on a table the other had just made (Store.MigrationFailed, exit 6). With it the
 * second waits for the first's commit, then finds nothing left to do; and a migration that fails
 * leaves nothing half applied. No migration sets a pragma a transaction would ignore.
 */
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class RoutedSqliteDialect extends SqliteDialect {
  readonly #store: SqliteStore;
  readonly #restartSignal: RestartSignal | undefined;
  constructor(store: SqliteStore, restartSignal: RestartSignal | undefined) {
    super({ database: {} as never });
    this.#store = store;
    this.#restartSignal = restartSignal;
  }
  override createAdapter(): DialectAdapter {
    const adapter = new TransactionalDdlAdapter();
    storesByAdapter.set(adapter, this.#store);
    return adapter;
  }
  override createDriver(): Driver {
    return new RoutedSqliteDriver(this.#store, this.#restartSignal);
  }
}

export interface OpenDatabaseOptions {
  /**
   * false when another connection checkpoints the WAL (a long-running
   * server's checkpointer thread); short-lived processes keep SQLite's own.
   */
  readonly autoCheckpoint?: boolean;
  /** Shared with that thread: see RestartSignal. */
  readonly restartSignal?: RestartSignal;
}

/** The page size of a new store's file. */
export const PAGE_SIZE = 8192;

/** Opens (creating if needed, owner-only) the SQLite file with WAL, a busy timeout and foreign keys on. */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  restrictStoreFiles(file);
  const sqlite = new SQLite(file);
  // 8 KB pages for a new file (a page size holds from the file's first write; in an existing WAL
  // store this is a no-op, see docs/store.md): rows of ecf_documents (~1,100 bytes) and ecf fill
  // them with less slack than 4 KB pages, 148 bytes less per e-CF (docs/performance.md).
  sqlite.pragma(`page_size = ${PAGE_SIZE}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  // A savepoint (one per e-CF in a group commit) and a statement that may fail halfway (an
  // insert that fires a trigger) copy the first change to each page to a statement journal.
  // Past 64 KiB SQLite moved that journal to a temporary file, one pwrite per page: 9% of
  // the CPU while issuing. In memory it holds what one savepoint or statement changes.
  sqlite.pragma('temp_store = MEMORY');
  if (options.autoCheckpoint === false) sqlite.pragma('wal_autocheckpoint = 0');
  const db = new Kysely<Database>({ dialect: new RoutedSqliteDialect(new SqliteStore(file, sqlite), options.restartSignal), plugins: [new InlineLimits()] });
  roots.add(db);
  return db;
}

// What to do once a transaction of inTransaction has committed; dropped with it on rollback.
const commitHooks = new WeakMap<Kysely<Database>, (() => void)[]>();

/**
 * Runs `fn` after the transaction `db` belongs to commits (never if it rolls
 * back), or at once when `db` is not a transaction of inTransaction. For
 * telling in-process listeners about what the commit made visible.
 */
export function afterCommit(db: Kysely<Database>, fn: () => void): void {
  const hooks = commitHooks.get(db);
  if (hooks) hooks.push(fn);
  else fn();
}

/** What a transaction writes last, just before it commits (see deferToCommit). */
interface Deferred {
  readonly write: (tx: Tx, items: unknown[]) => Promise<void>;
  readonly item: unknown;
}
const deferred = new WeakMap<Kysely<Database>, Deferred[]>();

/**
 * Queues `item` for `write`, which the transaction `tx` runs once, with every
 * item queued for it in the order queued, after its work and just before it
 * commits. For writes that take a lock many transactions contend for (the
 * head of a tenant's journal): taken last, it is held only for the commit,
 * and writers of several such rows can take them in one order. A savepoint
 * rolled back (group-commit.ts) drops what was queued inside it. Throws when
 * `tx` is not a transaction of inTransaction: nothing queued is ever lost.
 */
export function deferToCommit<T>(tx: Kysely<Database>, write: (tx: Tx, items: T[]) => Promise<void>, item: T): void {
  const queue = deferred.get(tx);
  if (!queue) throw new Error('deferToCommit needs a transaction of inTransaction');
  queue.push({ write: write as Deferred['write'], item });
}

/** How much is queued in `tx` now; rollBackDeferred drops what was queued after. */
export const deferredMark = (tx: Kysely<Database>): number => deferred.get(tx)?.length ?? 0;
export function rollBackDeferred(tx: Kysely<Database>, mark: number): void {
  deferred.get(tx)?.splice(mark);
}

async function writeDeferred(tx: Tx, queue: Deferred[]): Promise<void> {
  while (queue.length > 0) {
    const write = queue[0]!.write;
    const items = queue.filter((d) => d.write === write).map((d) => d.item);
    queue.splice(0, queue.length, ...queue.filter((d) => d.write !== write));
    await write(tx, items);
  }
}

/** One transaction per business fact: everything inside commits together or not at all. */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  const hooks: (() => void)[] = [];
  const result = await db.transaction().execute(async (tx) => {
    openTransactions.add(tx);
    commitHooks.set(tx, hooks);
    const queue: Deferred[] = [];
    deferred.set(tx, queue);
    try {
      const value = await work(tx);
      await writeDeferred(tx, queue);
      return value;
    } finally {
      openTransactions.delete(tx);
      commitHooks.delete(tx);
      deferred.delete(tx);
    }
  });
  for (const hook of hooks) hook();
  return result;
}
