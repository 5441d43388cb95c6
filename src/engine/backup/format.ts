import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { EngineError } from '../errors.js';
import { SCRYPT, keyFrom, type BackupManifest, type OpenedBackup } from './contents.js';
import { openV1, type ManifestV1 } from './format-v1.js';
import { CHUNK_BYTES, ChunkSealer, damaged, openChunks } from './sealed-stream.js';

/**
 * A backup is one file, sealed whole (format 2, since issue 32):
 *
 *   ECF-BACKUP 2\n
 *   <header, one line of JSON: the cipher, the chunk size, scrypt's parameters and salt>\n
 *   <sealed body: AES-256-GCM in chunks (sealed-stream.ts)>
 *
 * The body, once opened, is the manifest (one line of JSON: when, which
 * store, how big, the schema, and the secrets the rows point at) and then
 * the SQLite database byte for byte. (From a PostgreSQL store, that database
 * is the engine's copy of every table: the same format, restorable onto
 * SQLite or PostgreSQL.) Without the passphrase nothing in it can be read
 * but the header; the key comes from the passphrase by scrypt.
 *
 * Format 1 (format-v1.ts) sealed only the secrets and left the database in
 * clear; those files still restore.
 */
const MAGIC_V1 = 'ECF-BACKUP 1\n';
const MAGIC_V2 = 'ECF-BACKUP 2\n';

interface HeaderV2 {
  readonly format: 'ecf-backup';
  readonly version: 2;
  readonly cipher: 'aes-256-gcm';
  readonly chunkBytes: number;
  readonly kdf: { readonly name: 'scrypt'; readonly N: number; readonly r: number; readonly p: number; readonly salt: string };
}

/** Seals `manifest` and the database file into the new file `to` (mode 0600), a chunk at a time. */
export async function writeBackup(to: string, passphrase: string, manifest: BackupManifest, databaseFile: string): Promise<void> {
  const salt = randomBytes(16);
  const header: HeaderV2 = { format: 'ecf-backup', version: 2, cipher: 'aes-256-gcm', chunkBytes: CHUNK_BYTES, kdf: { name: 'scrypt', ...SCRYPT, salt: salt.toString('base64') } };
  const head = Buffer.from(`${MAGIC_V2}${JSON.stringify(header)}\n`, 'utf8');
  const out = await open(to, 'wx', 0o600);
  try {
    await out.write(head);
    const sealer = new ChunkSealer(keyFrom(passphrase, salt, SCRYPT), head, (sealed) => out.write(sealed));
    await sealer.push(Buffer.from(`${JSON.stringify(manifest)}\n`, 'utf8'));
    for await (const chunk of createReadStream(databaseFile)) await sealer.push(chunk as Buffer);
    await sealer.end();
    await out.sync();
  } finally {
    await out.close();
  }
}

/**
 * Opens a backup of either format with its passphrase: the manifest at once
 * (a wrong passphrase is refused here, having read little), the database
 * when asked.
 */
export async function openBackup(file: string, passphrase: string): Promise<OpenedBackup> {
  const { magic, header, bodyOffset } = readHeader(file);
  if (magic === MAGIC_V1) return openV1(file, passphrase, header as ManifestV1, bodyOffset);
  const h = header as HeaderV2;
  if (h.version !== 2 || h.cipher !== 'aes-256-gcm' || h.chunkBytes !== CHUNK_BYTES || h.kdf?.name !== 'scrypt') notABackup(file);
  const key = keyFrom(passphrase, Buffer.from(h.kdf.salt, 'base64'), h.kdf);
  const aad = (await readBytes(file, 0, bodyOffset));
  const end = statSync(file).size;

  /** The opened body, chunk by chunk. */
  async function* body(): AsyncGenerator<Buffer> {
    const fh = await open(file, 'r');
    try {
      yield* openChunks(fh, bodyOffset, end, key, aad, file);
    } finally {
      await fh.close();
    }
  }

  // The manifest is the body's first line (a few certificates make it tens of kilobytes).
  const head: Buffer[] = [];
  let manifestBytes = -1;
  let seen = 0;
  for await (const chunk of body()) {
    const newline = chunk.indexOf(10);
    head.push(chunk);
    if (newline !== -1) {
      manifestBytes = seen + newline;
      break;
    }
    seen += chunk.length;
  }
  if (manifestBytes === -1) throw damaged(file);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(Buffer.concat(head).subarray(0, manifestBytes).toString('utf8')) as BackupManifest;
  } catch {
    throw damaged(file);
  }
  const skip = manifestBytes + 1;

  /** Every byte of the database, in order, after the manifest line; checked against the manifest's size. */
  async function eachDatabaseChunk(each: (bytes: Buffer) => Promise<unknown> | void): Promise<void> {
    let at = 0;
    let database = 0;
    for await (const chunk of body()) {
      const from = Math.max(0, skip - at);
      at += chunk.length;
      if (from >= chunk.length) continue;
      database += chunk.length - from;
      await each(chunk.subarray(from));
    }
    if (database !== manifest.databaseBytes) throw damaged(file);
  }

  return {
    version: 2,
    manifest,
    verify: () => eachDatabaseChunk(() => undefined),
    async extractDatabase(to) {
      const out = await open(to, 'wx', 0o600);
      try {
        await eachDatabaseChunk((bytes) => out.write(bytes));
      } finally {
        await out.close();
      }
    },
  };
}

async function readBytes(file: string, start: number, length: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    await fh.read(buffer, 0, length, start);
    return buffer;
  } finally {
    await fh.close();
  }
}

/** The magic line, the header line (format 1: the manifest) parsed, and where the body starts. */
function readHeader(file: string): { magic: string; header: { format?: string; version?: number }; bodyOffset: number } {
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
    // A format 1 manifest is one line; a few certificates make it tens of kilobytes.
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
    const magic = head.subarray(0, MAGIC_V1.length).toString('latin1');
    if (newlines.length < 2 || (magic !== MAGIC_V1 && magic !== MAGIC_V2)) notABackup(file);
    let header: { format?: string; version?: number };
    try {
      header = JSON.parse(head.subarray(magic.length, newlines[1]).toString('utf8')) as typeof header;
    } catch {
      notABackup(file);
    }
    if (header?.format !== 'ecf-backup' || header.version !== (magic === MAGIC_V1 ? 1 : 2)) notABackup(file);
    return { magic, header, bodyOffset: newlines[1]! + 1 };
  } finally {
    closeSync(fd);
  }
}

function notABackup(file: string): never {
  throw new EngineError('validation', 'Backup.NotABackup', `${file} is not an ecf backup (made by \`ecf backup\`).`);
}

/** `to` appears only once complete: written as `<to>.restoring`, then renamed. */
export async function extractAtomically(backup: OpenedBackup, to: string): Promise<void> {
  const partial = `${to}.restoring`;
  try {
    await backup.extractDatabase(partial);
    renameSync(partial, to);
  } finally {
    rmSync(partial, { force: true });
  }
}
