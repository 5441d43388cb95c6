import type { Engine } from '../engine.js';
import { EngineError } from '../errors.js';
import { getSetting } from '../settings/settings.js';
import { EncryptedFileStore } from './file-store.js';
import { databasePlace } from './sealed-place.js';
import { KeychainStore } from './keychain-store.js';
import type { SecretStore, SecretStoreKind } from './secret-store.js';

let keychainReachable: Promise<boolean> | undefined;

/** Probed once per process: a D-Bus round trip is not free. */
export function keychainAvailable(): Promise<boolean> {
  keychainReachable ??= KeychainStore.reachable();
  return keychainReachable;
}

/** The store of a given kind (for reading what was stored there). */
export function storeOf(engine: Engine, kind: SecretStoreKind): SecretStore {
  if (kind === 'keychain') return new KeychainStore();
  // Several machines share a PostgreSQL store: the sealed bodies go with it, the key stays on each node.
  const place = engine.dialect === 'postgres' ? databasePlace(engine.db, () => engine.clock.now()) : undefined;
  return new EncryptedFileStore(engine.dataDir, process.env, place);
}

/**
 * The store new secrets go to, per the `secrets.store` setting: `keychain`,
 * `file`, or `auto` (the keychain when one answers, else encrypted files).
 */
export async function currentSecretStore(engine: Engine): Promise<SecretStore> {
  const choice = await getSetting<'auto' | SecretStoreKind>(engine, 'secrets.store');
  if (choice === 'file') return storeOf(engine, 'file');
  if (await keychainAvailable()) return storeOf(engine, 'keychain');
  if (choice === 'keychain') {
    throw new EngineError(
      'unavailable',
      'SecretStore.Unavailable',
      'secrets.store is keychain but no OS keychain answers (on Linux: an unlocked Secret Service such as gnome-keyring).',
    );
  }
  return storeOf(engine, 'file');
}
