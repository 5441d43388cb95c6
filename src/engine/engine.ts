import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { DATABASE_FILE, DATABASE_URL_FILE } from './data-dir.js';
import { EngineError } from './errors.js';
import { openDatabase, type Db } from './store/database.js';
import { isPostgresUrl } from './store/dialect.js';
import { migrateToLatest } from './store/migrate.js';
import { fillNoteReferences } from './ecf/note-references.js';
import { documentStore, keptContextEncoder } from './store/documents/index.js';
import { newRestartSignal, startCheckpointer, type RestartSignal } from './store/checkpointer.js';
import { silentLog, type EngineLog } from './log/logger.js';
import type { Engine, SecretsPort, TaxauthPort } from './engine-types.js';
import { secretsPort } from './secrets/select.js';
import { taxauthPort } from './taxauth/taxauth-port.js';


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
  /** Replaces the secret stores (tests); absent, the keychain or the encrypted files per `secrets.store`. */
  readonly secrets?: SecretsPort;
  /** Replaces the tax authority's clients (tests); absent, per the `taxauth.*` settings. */
  readonly taxauth?: TaxauthPort;
  /**
   * A development option: false stores documents as the release before
   * migration 0017 did (raw bytes, the new digest columns null), for the
   * in-place conversion's tests and the benches' runs without compression.
   * Default true. Reads take both layouts either way.
   */
  readonly compressDocuments?: boolean;
}

/**
 * The environment variables the ports read, in one place and once, when the
 * engine opens: ECF_SECRET_KEY (the file store's key, for machines that mount
 * it) and ECF_TAXAUTH_SANDBOX_URL (set by `ecf serve --sandbox` before it
 * opens its engines and starts its job threads).
 */
function portEnvironment(env: NodeJS.ProcessEnv = process.env): { secretKey: string | undefined; sandboxUrl: string | undefined } {
  return { secretKey: env.ECF_SECRET_KEY || undefined, sandboxUrl: env.ECF_TAXAUTH_SANDBOX_URL || undefined };
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
  // One zstd context per engine for the documents it writes: node:zlib's public call makes a context
  // and loads the dictionary for every document (about 330 against 30 µs, docs/performance.md).
  const encoder = keptContextEncoder();
  const { secretKey, sandboxUrl } = portEnvironment();
  // The ports work against the engine they belong to, so it exists before them.
  const engine: { -readonly [K in keyof Engine]: Engine[K] } = {
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
      encoder.close();
    },
    documents: documentStore({ compress: options.compressDocuments !== false, encoder: encoder.encode }),
    secrets: undefined as unknown as SecretsPort,
    taxauth: undefined as unknown as TaxauthPort,
  };
  engine.secrets = options.secrets ?? secretsPort(engine, secretKey);
  engine.taxauth = options.taxauth ?? taxauthPort(engine, sandboxUrl);
  // What a migration left for the engine's own reading of stored documents (0029's notes).
  if (options.migrate !== false) {
    try {
      await fillNoteReferences(engine);
    } catch (e) {
      await engine.close();
      throw e;
    }
  }
  return engine;
}
