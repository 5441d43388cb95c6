import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_KEY_FILE } from '../data-dir.js';
import { EngineError } from '../errors.js';

/** Secrets the encrypted-file store holds sealed under its key, and where (its files, or the shared store's table). */
export interface SealedBodies {
  readonly count: number;
  readonly where: string;
}

/** The sealed bodies in `<data dir>/secrets` (the file store's place on SQLite). */
export function sealedFilesIn(dataDir: string): SealedBodies {
  const dir = join(dataDir, 'secrets');
  const count = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.sealed')).length : 0;
  return { count, where: `encrypted files in ${dir}` };
}

/**
 * Creates the key of the encrypted-file secret store if it is absent. It lives
 * beside the database, never inside it, readable by its owner only.
 * Returns true when a new key was written.
 *
 * Never while secrets sealed under a key are there: only the key they were
 * sealed with opens them, so a new one would strand every certificate
 * without a word (a lost key file, a node started without the cluster's).
 */
export function ensureSecretStoreKey(dataDir: string, sealed: SealedBodies = sealedFilesIn(dataDir)): boolean {
  const file = join(dataDir, SECRET_KEY_FILE);
  if (existsSync(file)) return false;
  if (sealed.count > 0) throw secretKeyMissing(dataDir, sealed);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return true;
}

/** What to restore, and where, when the key of existing sealed secrets is gone. */
export function secretKeyMissing(dataDir: string, sealed: SealedBodies): EngineError {
  const file = join(dataDir, SECRET_KEY_FILE);
  return new EngineError(
    'unavailable',
    'SecretStore.KeyMissing',
    `${file} is missing, but ${sealed.count} secret${sealed.count === 1 ? ' is' : 's are'} sealed under it (${sealed.where}) and only that key opens them, ` +
      `so no new key is made. Put the key back at ${file} (mode 0600), from where you keep a copy of it or from another node of this store, ` +
      'or set ECF_SECRET_KEY to it; then run this again.',
  );
}
