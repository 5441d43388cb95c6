import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../clock.js';
import { DATABASE_FILE } from '../data-dir.js';
import { ensureSecretStoreKey, openEngine } from '../engine.js';
import { EngineError } from '../errors.js';
import { currentSecretStore } from '../secrets/select.js';
import type { SecretStoreKind } from '../secrets/secret-store.js';
import { inTransaction } from '../store/database.js';
import { migrateToLatest } from '../store/migrate.js';
import { sha256Of } from './backup.js';
import { readHeader, unseal } from './format.js';
import { repointSecrets } from './secret-refs.js';

export interface RestoreResult {
  readonly dataDir: string;
  readonly createdAt: string;
  readonly databaseBytes: number;
  readonly secrets: number;
  /** Where this machine keeps the restored secrets. */
  readonly secretStore: SecretStoreKind;
  /** Migrations applied because the backup came from an older version. */
  readonly migrated: readonly string[];
}

/**
 * Restores a backup into a data directory that has no database yet (on
 * this machine or another): the database bytes, checked against the sealed
 * hash, then the secrets into this machine's secret store (keychain or
 * encrypted files, per `secrets.store`), and the rows repointed there.
 */
export async function restoreDataDir(file: string, dataDir: string, passphrase: string, options: { clock?: Clock } = {}): Promise<RestoreResult> {
  const { manifest, databaseOffset } = readHeader(file);
  const sealed = unseal(passphrase, manifest);
  const databaseFile = join(dataDir, DATABASE_FILE);
  if (existsSync(databaseFile)) {
    throw new EngineError('conflict', 'Restore.DataDirInUse', `${dataDir} already holds a database; restore into an empty data directory (--data-dir) so nothing is overwritten.`);
  }
  if (statSync(file).size - databaseOffset !== manifest.databaseBytes || (await sha256Of(file, databaseOffset)) !== sealed.databaseSha256) {
    throw new EngineError('validation', 'Backup.Damaged', `${file} is damaged or was altered: its database does not match the sealed checksum.`);
  }

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const partial = `${databaseFile}.restoring`;
  try {
    await pipeline(createReadStream(file, { start: databaseOffset }), createWriteStream(partial, { mode: 0o600, flags: 'wx' }));
    renameSync(partial, databaseFile);
  } finally {
    rmSync(partial, { force: true });
  }

  ensureSecretStoreKey(dataDir);
  const engine = await openEngine({ dataDir, migrate: false, ...(options.clock && { clock: options.clock }) });
  try {
    const migrated = (await migrateToLatest(engine.db)).map((m) => m.name);
    const store = await currentSecretStore(engine);
    for (const s of sealed.secrets) await store.put(s.name, Buffer.from(s.value, 'base64'));
    await inTransaction(engine.db, (tx) => repointSecrets(tx, store.kind));
    return {
      dataDir,
      createdAt: manifest.createdAt,
      databaseBytes: manifest.databaseBytes,
      secrets: sealed.secrets.length,
      secretStore: store.kind,
      migrated,
    };
  } finally {
    await engine.close();
  }
}
