import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { EngineError, invalidField } from '../errors.js';

/**
 * A backup is one file:
 *
 *   ECF-BACKUP 1\n
 *   <manifest, one line of JSON>\n
 *   <the SQLite database, byte for byte>
 *
 * (From a PostgreSQL store, that database is the engine's copy of every
 * table: the same format, restorable onto SQLite or PostgreSQL.)
 *
 * The manifest is readable (what, when, how big) except its sealed part:
 * the secrets (certificate files and passwords, webhook secrets) and the
 * SHA-256 of the database bytes, under AES-256-GCM with a key derived from
 * the operator's passphrase by scrypt. The hash being sealed means a
 * database swapped into the file is refused on restore.
 */
export const MAGIC = 'ECF-BACKUP 1\n';

export interface SealedSecrets {
  readonly databaseSha256: string;
  readonly secrets: readonly { readonly name: string; readonly value: string }[];
}

export interface Manifest {
  readonly format: 'ecf-backup';
  readonly version: 1;
  readonly createdAt: string;
  /**
   * The store backed up (absent in backups made before PostgreSQL could be):
   * a PostgreSQL store is copied table by table into the SQLite database
   * below, so either kind restores onto either store.
   */
  readonly store?: 'sqlite' | 'postgres';
  readonly databaseBytes: number;
  /** The last migration applied to the backed-up database. */
  readonly schema: string | null;
  readonly secretCount: number;
  readonly kdf: { readonly name: 'scrypt'; readonly N: number; readonly r: number; readonly p: number; readonly salt: string };
  readonly sealed: { readonly iv: string; readonly tag: string; readonly data: string };
}

const SCRYPT = { N: 2 ** 15, r: 8, p: 1 } as const;
const AAD = Buffer.from('ecf-backup-v1');
export const MIN_PASSPHRASE = 8;

export function checkPassphrase(passphrase: string): void {
  if (passphrase.length < MIN_PASSPHRASE) {
    throw invalidField('passphrase', 'Backup.PassphraseTooShort', `The passphrase protects the certificates in the backup; use at least ${MIN_PASSPHRASE} characters.`);
  }
}

const keyFrom = (passphrase: string, salt: Buffer, kdf: { N: number; r: number; p: number }): Buffer =>
  scryptSync(passphrase.normalize('NFC'), salt, 32, { ...kdf, maxmem: 256 * kdf.N * kdf.r });

export function seal(passphrase: string, content: SealedSecrets): Pick<Manifest, 'kdf' | 'sealed'> {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(passphrase, salt, SCRYPT), iv).setAAD(AAD);
  const data = Buffer.concat([cipher.update(JSON.stringify(content), 'utf8'), cipher.final()]);
  return {
    kdf: { name: 'scrypt', ...SCRYPT, salt: salt.toString('base64') },
    sealed: { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') },
  };
}

export function unseal(passphrase: string, manifest: Manifest): SealedSecrets {
  const { kdf, sealed } = manifest;
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFrom(passphrase, Buffer.from(kdf.salt, 'base64'), kdf), Buffer.from(sealed.iv, 'base64')).setAAD(AAD);
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
  } catch {
    throw invalidField('passphrase', 'Backup.WrongPassphrase', 'The passphrase does not open this backup (or the backup was altered).');
  }
  return JSON.parse(plain.toString('utf8')) as SealedSecrets;
}

/** The manifest and where the database bytes start. */
export function readHeader(file: string): { manifest: Manifest; databaseOffset: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new EngineError('validation', 'Backup.FileUnreadable', `Cannot read the backup ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}).`);
  }
  try {
    const chunks: Buffer[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    let read = 0;
    let newlines: number[] = [];
    // The manifest is one line; a few certificates make it tens of kilobytes.
    while (newlines.length < 2) {
      const n = readSync(fd, chunk, 0, chunk.length, read);
      if (n === 0) break;
      chunks.push(Buffer.from(chunk.subarray(0, n)));
      read += n;
      const head = Buffer.concat(chunks);
      newlines = [];
      for (let at = head.indexOf(10); at !== -1 && newlines.length < 2; at = head.indexOf(10, at + 1)) newlines.push(at);
      if (read > 64 * 1024 * 1024) break;
    }
    const head = Buffer.concat(chunks);
    if (newlines.length < 2 || head.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) notABackup(file);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(head.subarray(MAGIC.length, newlines[1]).toString('utf8')) as Manifest;
    } catch {
      notABackup(file);
    }
    if (manifest.format !== 'ecf-backup' || manifest.version !== 1) notABackup(file);
    return { manifest, databaseOffset: newlines[1]! + 1 };
  } finally {
    closeSync(fd);
  }
}

function notABackup(file: string): never {
  throw new EngineError('validation', 'Backup.NotABackup', `${file} is not an ecf backup (made by \`ecf backup\`).`);
}
