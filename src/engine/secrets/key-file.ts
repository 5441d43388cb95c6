import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_KEY_FILE } from '../data-dir.js';

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
