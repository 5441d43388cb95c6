import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import { DATABASE_FILE } from '../data-dir.js';
import { databaseUrlOf, openEngine } from '../engine.js';
import type { Engine } from '../engine-types.js';
import { ensureSecretStoreKey } from '../secrets/key-file.js';
import { EngineError } from '../errors.js';
import type { SecretStoreKind } from '../secrets/secret-store.js';
import { COPIED_TABLES, copyStore } from './copy-store.js';
import { inTransaction } from '../store/database.js';
import type { StoreDialect } from '../store/dialect.js';
import { migrateToLatest } from '../store/migrate.js';
import type { BackupManifest } from './contents.js';
import { extractAtomically, openBackup } from './format.js';
import { repointSecrets } from './secret-refs.js';
import { recordDatabaseUrl, refuseOtherDatabaseUrl } from './database-url-file.js';
import { holdRestoredRanges, type RangesHeld } from './ranges-held.js';
import { appendJournal } from '../journal/append.js';

export interface RestoreResult {
  readonly dataDir: string;
  readonly createdAt: string;
  /** The backup's format: 2 is sealed whole; 1, from before issue 32, has its database in clear. */
  readonly format: 1 | 2;
  /** Where the backup was taken from (absent for backups older than this field). */
  readonly from?: StoreDialect;
  /** Where it was restored to: the data directory's SQLite file, or the PostgreSQL database it points at. */
  readonly store: StoreDialect;
  readonly databaseBytes: number;
  readonly secrets: number;
  /** Where this machine keeps the restored secrets. */
  readonly secretStore: SecretStoreKind;
  /** Migrations applied because the backup came from an older version. */
  readonly migrated: readonly string[];
  /** On PostgreSQL: signed e-CF whose bytes were hashed again in the restored database and matched. */
  readonly documentsVerified?: number;
  /** On PostgreSQL: the data directory's database-url file was written, so later commands find the store without ECF_DATABASE_URL. */
  readonly databaseUrlRecorded?: boolean;
  /** Every e-NCF range is held until its next number is known unused (ranges-held.ts). */
  readonly rangesHeld: RangesHeld;
}

export interface RestoreOptions {
  readonly clock?: Clock;
  /** The store to restore into, as openEngine takes it; by default what the data directory points at. */
  readonly databaseUrl?: string | null;
}

/**
 * Restores a backup into a data directory whose store is empty (on this
 * machine or another): the database, every byte checked as sealed, then
 * the secrets into this machine's secret store (keychain or encrypted files,
 * per `secrets.store`), and the rows repointed there.
 *
 * The store is what the data directory points at. SQLite: the database bytes
 * become its file. PostgreSQL (ECF_DATABASE_URL or the data directory's
 * database-url file): the backup's database is opened in a scratch file and
 * every table copied into the PostgreSQL database, compared row for row and
 * every signed e-CF hashed again (the copy of `ecf migrate-store`); the
 * database may not exist yet, or exist empty. A wrong passphrase, a damaged
 * file or a store that already holds data is refused before anything is
 * written.
 */
export async function restoreDataDir(file: string, dataDir: string, passphrase: string, options: RestoreOptions = {}): Promise<RestoreResult> {
  const backup = await openBackup(file, passphrase);
  const { manifest } = backup;
  const url = databaseUrlOf({ dataDir, ...(options.databaseUrl !== undefined && { databaseUrl: options.databaseUrl }) });
  const databaseFile = join(dataDir, DATABASE_FILE);
  if (!url && existsSync(databaseFile)) {
    throw new EngineError('conflict', 'Restore.DataDirInUse', `${dataDir} already holds a database; restore into an empty data directory (--data-dir) so nothing is overwritten.`);
  }
  await backup.verify();

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const clock = options.clock && { clock: options.clock };
  const base = { dataDir, createdAt: manifest.createdAt, format: backup.version, ...(manifest.store && { from: manifest.store }), databaseBytes: manifest.databaseBytes };
  if (!url) {
    // Before the database appears: a directory holding secrets sealed under a lost key is refused untouched.
    ensureSecretStoreKey(dataDir);
    await extractAtomically(backup, databaseFile);
    const engine = await openEngine({ dataDir, databaseUrl: null, migrate: false, ...clock });
    try {
      const migrated = (await migrateToLatest(engine.db)).map((m) => m.name);
      const rangesHeld = await holdRestoredRanges(engine);
      const secrets = await restoreSecrets(engine, manifest);
      await recordRestore(engine, manifest.createdAt);
      return { ...base, store: 'sqlite', migrated, rangesHeld, ...secrets };
    } finally {
      await engine.close();
    }
  }

  refuseOtherDatabaseUrl(dataDir, url);
  const target = await openEngine({ dataDir, databaseUrl: url, migrate: false, ...clock });
  try {
    await refuseFilled(target, dataDir, url);
    await migrateToLatest(target.db);
    const scratch = mkdtempSync(join(dataDir, '.restoring-'));
    let migrated: string[];
    let documentsVerified: number;
    try {
      await extractAtomically(backup, join(scratch, DATABASE_FILE));
      const copy = await openEngine({ dataDir: scratch, databaseUrl: null, migrate: false, ...clock });
      try {
        migrated = (await migrateToLatest(copy.db)).map((m) => m.name);
        // The secrets come from the sealed part below, not from the scratch directory (which holds none).
        ({ documentsVerified } = await copyStore(copy, target, { carrySecrets: false }));
      } finally {
        await copy.close();
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const rangesHeld = await holdRestoredRanges(target);
    ensureSecretStoreKey(dataDir);
    const secrets = await restoreSecrets(target, manifest);
    await recordRestore(target, manifest.createdAt);
    return { ...base, store: 'postgres', migrated, documentsVerified, rangesHeld, ...secrets, databaseUrlRecorded: recordDatabaseUrl(dataDir, url) };
  } finally {
    await target.close();
  }
}

async function restoreSecrets(engine: Engine, sealed: BackupManifest): Promise<{ secrets: number; secretStore: SecretStoreKind }> {
  const store = await engine.secrets.current();
  for (const s of sealed.secrets) await store.put(s.name, Buffer.from(s.value, 'base64'));
  await inTransaction(engine.db, (tx) => repointSecrets(tx, store.kind));
  return { secrets: sealed.secrets.length, secretStore: store.kind };
}

/**
 * One `backup.restored` entry per tenant in the restored store: the backup's
 * creation instant and the restore's. The chain goes on from the backup's
 * head, so what happened between the two instants is visibly absent.
 */
async function recordRestore(engine: Engine, backupCreatedAt: string): Promise<void> {
  const now = engine.clock.now();
  await inTransaction(engine.db, async (tx) => {
    const tenants = await tx.selectFrom('tenants').select('store_key').orderBy('store_key').execute();
    for (const t of tenants) appendJournal(tx, now, { tenantKey: t.store_key, kind: 'backup.restored', data: `backup=${backupCreatedAt} restored=${now.toISOString()}` });
  });
}

/** Checked before migrating: a database that already holds data is left exactly as it was. */
async function refuseFilled(target: Engine, dataDir: string, url: string): Promise<void> {
  const present = new Set((await target.db.introspection.getTables()).map((t) => t.name));
  const filled: string[] = [];
  for (const { table } of COPIED_TABLES) {
    if (!present.has(table)) continue;
    if ((await sql`select 1 from ${sql.table(table)} limit 1`.execute(target.db)).rows.length) filled.push(table);
  }
  if (filled.length) {
    const where = new URL(url);
    throw new EngineError(
      'conflict',
      'Restore.DataDirInUse',
      `The PostgreSQL database of ${dataDir} (${where.host}${where.pathname}) already holds data (${filled.slice(0, 5).join(', ')}${filled.length > 5 ? ', …' : ''}); restore into an empty database so nothing is overwritten.`,
    );
  }
}
