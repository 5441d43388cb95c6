import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../data-dir.js';
import { openEngine } from '../engine.js';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { BUSY_TIMEOUT_MS } from '../store/database.js';
import type { StoreDialect } from '../store/dialect.js';
import { checkPassphrase } from './contents.js';
import { writeBackup } from './format.js';
import { secretReferences } from './secret-refs.js';

const ALL_PAGES = 2 ** 30;

export interface BackupResult {
  readonly file: string;
  readonly createdAt: string;
  /** The store backed up; the file restores onto either. */
  readonly store: StoreDialect;
  readonly databaseBytes: number;
  readonly secrets: number;
  /** Rows that point at a secret the store no longer holds (their certificate cannot sign anyway). */
  readonly missingSecrets: readonly string[];
}

/**
 * Writes a backup of the data directory's store to `file`, while the
 * appliance keeps working: a consistent snapshot of the database as one
 * SQLite file, and the secrets its rows point at, the whole file sealed
 * with the passphrase (format.ts). The file appears only once complete,
 * readable by its owner.
 *
 * On SQLite the snapshot is SQLite's online backup of the file. On
 * PostgreSQL it is the engine's own copy of every table (the copy `ecf
 * migrate-store` makes, read in one repeatable-read snapshot, compared row
 * for row and every signed document hashed again) into a scratch SQLite
 * file. So both stores make the same format, and any backup restores onto
 * either store. pg_dump was the other way: it needs a client of the
 * server's major version on every machine that backs up or restores, a
 * dump restores onto PostgreSQL only, and it would not hold the secrets
 * kept in the OS keychain nor open the sealed ones without the key; those
 * still had to be sealed here beside it.
 */
export async function backupDataDir(engine: Engine, file: string, passphrase: string): Promise<BackupResult> {
  checkPassphrase(passphrase);
  const target = resolve(file);
  if (existsSync(target)) {
    throw new EngineError('conflict', 'Backup.FileExists', `${target} already exists; choose another name (a backup never overwrites a file).`);
  }
  // The snapshot is the whole store in clear: readable by the owner only, like the store itself.
  const scratch = mkdtempSync(join(dirname(target), '.ecf-backup-'));
  chmodSync(scratch, 0o700);
  const snapshotFile = join(scratch, DATABASE_FILE);
  const partial = `${target}.partial`;
  try {
    if (engine.dialect === 'postgres') await copyIntoSqlite(engine, scratch);
    else await sqliteSnapshot(engine, snapshotFile);

    const snapshot = new SQLite(snapshotFile, { readonly: true });
    let references;
    let schema: string | null;
    try {
      references = secretReferences(snapshot);
      schema = (snapshot.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string } | undefined)?.name ?? null;
    } finally {
      snapshot.close();
    }
    const secrets: { name: string; value: string }[] = [];
    const missingSecrets: string[] = [];
    for (const r of references) {
      const value = await engine.secrets.of(r.store).get(r.ref);
      if (value) secrets.push({ name: r.ref, value: value.toString('base64') });
      else missingSecrets.push(`${r.table}: ${r.ref}`);
    }

    const databaseBytes = statSync(snapshotFile).size;
    const createdAt = engine.clock.now().toISOString();
    // Sealed whole: the database is the business in clear (customers, amounts, signed e-CF), not only the secrets.
    await writeBackup(partial, passphrase, { createdAt, store: engine.dialect, databaseBytes, schema, secrets }, snapshotFile);
    renameSync(partial, target);
    return { file: target, createdAt, store: engine.dialect, databaseBytes, secrets: secrets.length, missingSecrets };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

async function sqliteSnapshot(engine: Engine, snapshotFile: string): Promise<void> {
  const source = new SQLite(join(engine.dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    source.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // After the first step, everything else in one step: a single read
    // transaction, so the copy is one consistent snapshot. Copied in small
    // steps, every commit of the running server would restart it.
    closeSync(openSync(snapshotFile, 'wx', 0o600));
    await source.backup(snapshotFile, { progress: () => ALL_PAGES });
  } finally {
    source.close();
  }
}

/**
 * Every table of the PostgreSQL store into a new SQLite file in `scratch`
 * (migrated by this version, as the source is). The secrets stay out of it:
 * the backup seals them under the passphrase instead.
 */
async function copyIntoSqlite(engine: Engine, scratch: string): Promise<void> {
  const { copyStore } = await import('./copy-store.js');
  const copy = await openEngine({ dataDir: scratch, databaseUrl: null, clock: engine.clock });
  try {
    await copyStore(engine, copy, { carrySecrets: false });
  } finally {
    await copy.close();
  }
  // One self-contained file: nothing left in a write-ahead log beside it.
  const file = new SQLite(join(scratch, DATABASE_FILE));
  try {
    file.pragma('journal_mode = delete');
  } finally {
    file.close();
  }
}
