/**
 * Where secrets rest (certificate files and their passwords, webhook
 * secrets): the OS keychain when there is one, otherwise files encrypted
 * with a key kept outside the database. Never the SQLite file.
 */
export type SecretStoreKind = 'keychain' | 'file';

export interface SecretStore {
  readonly kind: SecretStoreKind;
  put(name: string, secret: Buffer): Promise<void>;
  /** The secret, or null when nothing is stored under the name. */
  get(name: string): Promise<Buffer | null>;
  delete(name: string): Promise<void>;
  /** A short human description: which keychain, which folder. */
  describe(): string;
}

/**
 * The engine's port to its secret stores (`engine.secrets`), made once when
 * the engine opens. The `secrets.store` setting is read on every `current()`
 * call, so a changed setting applies to the next secret written.
 */
export interface SecretsPort {
  /** The store new secrets go to, per the `secrets.store` setting. */
  current(): Promise<SecretStore>;
  /** The store of a given kind (for reading what was stored there). */
  of(kind: SecretStoreKind): SecretStore;
  /** The file store's key comes from ECF_SECRET_KEY rather than the key file. */
  readonly keyFromEnvironment: boolean;
}
