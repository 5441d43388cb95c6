import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_KEY_FILE } from '../data-dir.js';
import type { Engine } from '../engine-types.js';
import { secretKeyMissing, type SealedBodies } from './key-file.js';
import { sealedPlaceOf } from './select.js';

export interface SecretKeyState {
  /** ECF_SECRET_KEY, the key file beside the database, or neither (yet). */
  readonly source: 'environment' | 'file' | 'absent';
  readonly file: string;
  /** The secrets sealed under that key: without it they cannot be opened. */
  readonly sealed: SealedBodies;
}

/** Where the file store's key comes from and what it holds sealed; reads only, never makes a key (`ecf doctor`). */
export async function secretKeyState(engine: Engine): Promise<SecretKeyState> {
  const file = join(engine.dataDir, SECRET_KEY_FILE);
  const place = sealedPlaceOf(engine);
  const sealed = { count: await place.count(), where: place.describe() };
  const source = engine.secrets.keyFromEnvironment ? 'environment' : existsSync(file) ? 'file' : 'absent';
  return { source, file, sealed };
}

/**
 * Refuses to go on when the key is gone but secrets sealed under it remain:
 * `ecf serve` checks it before it listens, rather than starting a node that
 * cannot sign (or that a first new secret would give a key of its own).
 */
export async function requireSecretKey(engine: Engine): Promise<void> {
  const state = await secretKeyState(engine);
  if (state.source === 'absent' && state.sealed.count > 0) throw secretKeyMissing(engine.dataDir, state.sealed);
}
