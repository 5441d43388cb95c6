import { createDecipheriv, createHash } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { EngineError } from '../errors.js';
import { keyFrom, type BackupManifest, type OpenedBackup } from './contents.js';
import { wrongPassphrase } from './sealed-stream.js';

/**
 * Format 1, as backups were written before issue 32 (read only, so they
 * still restore):
 *
 *   ECF-BACKUP 1\n
 *   <manifest, one line of JSON>\n
 *   <the SQLite database, byte for byte, in clear>
 *
 * Only the manifest's `sealed` part was encrypted: the secrets and the
 * SHA-256 of the database bytes (AES-256-GCM, scrypt key, "ecf-backup-v1"
 * as additional data), so a database swapped into the file is refused.
 */
export interface ManifestV1 {
  readonly format: 'ecf-backup';
  readonly version: 1;
  readonly createdAt: string;
  readonly store?: 'sqlite' | 'postgres';
  readonly databaseBytes: number;
  readonly schema: string | null;
  readonly secretCount: number;
  readonly kdf: { readonly name: 'scrypt'; readonly N: number; readonly r: number; readonly p: number; readonly salt: string };
  readonly sealed: { readonly iv: string; readonly tag: string; readonly data: string };
}

interface SealedV1 {
  readonly databaseSha256: string;
  readonly secrets: readonly { readonly name: string; readonly value: string }[];
}

const AAD = Buffer.from('ecf-backup-v1');

export function openV1(file: string, passphrase: string, manifest: ManifestV1, databaseOffset: number): OpenedBackup {
  const { kdf, sealed } = manifest;
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFrom(passphrase, Buffer.from(kdf.salt, 'base64'), kdf), Buffer.from(sealed.iv, 'base64')).setAAD(AAD);
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
  } catch {
    throw wrongPassphrase();
  }
  const opened = JSON.parse(plain.toString('utf8')) as SealedV1;
  const contents: BackupManifest = {
    createdAt: manifest.createdAt,
    ...(manifest.store && { store: manifest.store }),
    databaseBytes: manifest.databaseBytes,
    schema: manifest.schema,
    secrets: opened.secrets,
  };
  return {
    version: 1,
    manifest: contents,
    async verify() {
      if (statSync(file).size - databaseOffset !== manifest.databaseBytes || (await sha256Of(file, databaseOffset)) !== opened.databaseSha256) {
        throw new EngineError('validation', 'Backup.Damaged', `${file} is damaged or was altered: its database does not match the sealed checksum.`);
      }
    },
    async extractDatabase(to) {
      await pipeline(createReadStream(file, { start: databaseOffset }), createWriteStream(to, { mode: 0o600, flags: 'wx' }));
    },
  };
}

async function sha256Of(file: string, start: number): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { start })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
