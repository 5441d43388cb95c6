import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { DATABASE_FILE, SECRET_KEY_FILE } from './data-dir.js';
import { openDatabase, type Db } from './store/database.js';
import { migrateToLatest } from './store/migrate.js';
import { startCheckpointer } from './store/checkpointer.js';

/** What every engine function works against: the store and the clock. */
export interface Engine {
  readonly db: Db;
  readonly clock: Clock;
  readonly dataDir: string;
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
}

export async function openEngine(options: OpenEngineOptions): Promise<Engine> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = join(options.dataDir, DATABASE_FILE);
  const db = openDatabase(file, { autoCheckpoint: !options.backgroundCheckpoints });
  if (options.migrate !== false) {
    try {
      await migrateToLatest(db);
    } catch (e) {
      await db.destroy();
      throw e;
    }
  }
  const checkpointer = options.backgroundCheckpoints ? startCheckpointer(file) : undefined;
  return {
    db,
    clock: options.clock ?? systemClock,
    dataDir: options.dataDir,
    close: async () => {
      await db.destroy();
      await checkpointer?.stop();
    },
  };
}

/**
 * Creates the key of the encrypted-file secret store if it is absent. It lives
 * beside the database, never inside it, readable by its owner only.
 * Returns true when a new key was written.
 */
export function ensureSecretStoreKey(dataDir: string): boolean {
  const file = join(dataDir, SECRET_KEY_FILE);
  if (existsSync(file)) return false;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return true;
}
