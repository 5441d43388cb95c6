import type { Engine, SecretsPort } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { getSetting } from '../settings/settings.js';
import { EncryptedFileStore, directoryPlace, type SealedPlace } from './file-store.js';
import { databasePlace } from './sealed-place.js';
import { KeychainStore } from './keychain-store.js';
import type { SecretStore, SecretStoreKind } from './secret-store.js';

let keychainReachable: Promise<boolean> | undefined;

/** Probed once per process: a D-Bus round trip is not free. */
export function keychainAvailable(): Promise<boolean> {
  keychainReachable ??= KeychainStore.reachable();
  return keychainReachable;
}

/**
 * `engine.secrets` as openEngine makes it. `secretKey` is ECF_SECRET_KEY,
 * read once when the engine opens; the `secrets.store` setting is read on
 * every `current()`, so a changed setting applies to the next secret.
 */
export function secretsPort(engine: Engine, secretKey: string | undefined): SecretsPort {
  const of = (kind: SecretStoreKind): SecretStore => {
    if (kind === 'keychain') return new KeychainStore();
    return new EncryptedFileStore(engine.dataDir, secretKey, sealedPlaceOf(engine));
  };
  return {
    of,
    keyFromEnvironment: Boolean(secretKey),
    /** `keychain`, `file`, or `auto` (the keychain when one answers, else encrypted files). */
    async current() {
      const choice = await getSetting(engine, 'secrets.store');
      if (choice === 'file') return of('file');
      if (await keychainAvailable()) return of('keychain');
      if (choice === 'keychain') {
        throw new EngineError(
          'unavailable',
          'SecretStore.Unavailable',
          'secrets.store is keychain but no OS keychain answers (on Linux: an unlocked Secret Service such as gnome-keyring).',
        );
      }
      return of('file');
    },
  };
}

/** Where the file store's sealed bodies rest: several machines share a PostgreSQL store, so they go with it (the key stays on each node). */
export function sealedPlaceOf(engine: Engine): SealedPlace {
  return engine.dialect === 'postgres' ? databasePlace(engine.db, () => engine.clock.now()) : directoryPlace(engine.dataDir);
}
