import { scryptSync } from 'node:crypto';
import { invalidField } from '../errors.js';

/** What a backup holds, whatever its format: read from inside the sealed part. */
export interface BackupManifest {
  readonly createdAt: string;
  /**
   * The store backed up (absent in backups made before PostgreSQL could be):
   * a PostgreSQL store is copied table by table into the SQLite database of
   * the backup, so either kind restores onto either store.
   */
  readonly store?: 'sqlite' | 'postgres';
  readonly databaseBytes: number;
  /** The last migration applied to the backed-up database. */
  readonly schema: string | null;
  /** The secrets the rows point at (certificate files and passwords, webhook secrets, the status API key), base64. */
  readonly secrets: readonly { readonly name: string; readonly value: string }[];
}

/** A backup whose passphrase opened it; its database is checked and extracted on demand (it may be large). */
export interface OpenedBackup {
  readonly version: 1 | 2;
  readonly manifest: BackupManifest;
  /** Reads the whole file once: throws Backup.Damaged unless every byte is as written. */
  verify(): Promise<void>;
  /** The database bytes into the new file `to` (mode 0600). */
  extractDatabase(to: string): Promise<void>;
}

export const SCRYPT = { N: 2 ** 15, r: 8, p: 1 } as const;
export const MIN_PASSPHRASE = 8;

export function checkPassphrase(passphrase: string): void {
  if (passphrase.length < MIN_PASSPHRASE) {
    throw invalidField('passphrase', 'Backup.PassphraseTooShort', `The passphrase protects the whole backup; use at least ${MIN_PASSPHRASE} characters.`);
  }
}

export const keyFrom = (passphrase: string, salt: Buffer, kdf: { N: number; r: number; p: number }): Buffer =>
  scryptSync(passphrase.normalize('NFC'), salt, 32, { ...kdf, maxmem: 256 * kdf.N * kdf.r });
