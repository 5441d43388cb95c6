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
