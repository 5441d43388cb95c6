import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { DATABASE_FILE, DATABASE_URL_FILE } from './data-dir.js';
import { EngineError } from './errors.js';
import { openDatabase, type Db } from './store/database.js';
import { isPostgresUrl, type StoreDialect } from './store/dialect.js';
import { migrateToLatest } from './store/migrate.js';
import { newRestartSignal, startCheckpointer, type RestartSignal } from './store/checkpointer.js';
import { silentLog, type EngineLog } from './log/logger.js';

// Kept importable from here for the callers that create a data directory (ecf init, restore, tests).
export { ensureSecretStoreKey } from './secrets/key-file.js';

/** What every engine function works against: the store and the clock. */
export interface Engine {
  readonly db: Db;
  /** SQLite (the file in the data directory) or PostgreSQL (ECF_DATABASE_URL). */
  readonly dialect: StoreDialect;
  /** The PostgreSQL URL the store was opened with (LISTEN needs a connection of its own); absent for SQLite. */
  readonly databaseUrl?: string;
  /** Set when a checkpointer thread looks after the SQLite WAL: what other threads' engines pass as `checkpointedBy`. */
  readonly restartSignal?: RestartSignal;
  readonly clock: Clock;
  /** Where the secret-store key and, with SQLite, the database live. */
  readonly dataDir: string;
  /** Where the engine logs state changes and background failures; silent unless the opener passes a logger. */
  readonly log: EngineLog;
  close(): Promise<void>;
}

export interface OpenEngineOptions {
  readonly dataDir: string;
  readonly clock?: Clock;
  /** Apply pending migrations on open (the default); `ecf migrate` turns it off to steer them itself. */
  readonly migrate?: boolean;
  /**
   * A long-running process (the server) checkpoints the WAL from a thread of
   * its own instead of inside whichever commit crosses the threshold.
   */
  readonly backgroundCheckpoints?: boolean;
  /**
   * Another thread of this process checkpoints the WAL (the server's
   * checkpointer, whose engine holds this signal): this connection never
   * checkpoints inside a commit, and lets that thread's restarts in. For
   * the server's job threads.
   */
  readonly checkpointedBy?: RestartSignal;
  /**
   * `postgres://...` puts the store in PostgreSQL, shared by every engine
   * process pointed at it. Absent, ECF_DATABASE_URL, then the data
   * directory's `database-url` file; none of them, the SQLite file in the
   * data directory. null: the SQLite file, whatever the environment says
   * (copying a store from PostgreSQL back into the data directory).
   */
  readonly databaseUrl?: string | null;
  /** The logger of a long-running process (`ecf serve` passes its pino logger); absent, silence. */
  readonly log?: EngineLog;
}

/** The database URL an engine opened with these options would use, if any. */
export function databaseUrlOf(options: Pick<OpenEngineOptions, 'databaseUrl' | 'dataDir'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (options.databaseUrl === null) return undefined;
  const file = join(options.dataDir, DATABASE_URL_FILE);
  const url = options.databaseUrl || env.ECF_DATABASE_URL || (existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined);
  if (!url) return undefined;
  if (!isPostgresUrl(url)) {
    throw new EngineError('validation', 'Store.UnsupportedUrl', 'The database URL must start with postgres:// or postgresql://; leave it unset for the SQLite file in the data directory.');
  }
  return url;
}

export async function openEngine(options: OpenEngineOptions): Promise<Engine> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const url = databaseUrlOf(options);
  const file = join(options.dataDir, DATABASE_FILE);
  let db: Db;
  const ownCheckpointer = options.backgroundCheckpoints && !url && !options.checkpointedBy;
  const restartSignal = url ? undefined : (options.checkpointedBy ?? (ownCheckpointer ? newRestartSignal() : undefined));
  if (url) {
    // Loaded only for PostgreSQL: the driver adds about 60 ms to every start of the CLI.
    const { ensurePostgresDatabase, openPostgres } = await import('./store/postgres.js');
    await ensurePostgresDatabase(url);
    db = openPostgres(url);
  } else {
    db = openDatabase(file, { autoCheckpoint: restartSignal === undefined, restartSignal });
  }
  if (options.migrate !== false) {
    try {
      await migrateToLatest(db);
    } catch (e) {
      await db.destroy();
      throw e;
    }
  }
  const checkpointer = ownCheckpointer && restartSignal ? startCheckpointer(file, restartSignal) : undefined;
  return {
    db,
    dialect: url ? 'postgres' : 'sqlite',
    ...(url && { databaseUrl: url }),
    ...(restartSignal && { restartSignal }),
    clock: options.clock ?? systemClock,
    dataDir: options.dataDir,
    log: options.log ?? silentLog,
    close: async () => {
      await db.destroy();
      await checkpointer?.stop();
    },
  };
}
