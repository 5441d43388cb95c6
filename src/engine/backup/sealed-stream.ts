import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { EngineError, invalidField } from '../errors.js';

/**
 * The body of a backup (format 2) sealed in chunks, so a store of any size is
 * sealed and opened a chunk at a time, never held in memory: each chunk of
 * CHUNK_BYTES (the last may be shorter) is AES-256-GCM under the passphrase's
 * key, its 16-byte tag after it. The nonce is the chunk's number and a flag
 * set on the last chunk only (the STREAM construction), and the file's header
 * is the additional data of every chunk: chunks moved, dropped, repeated or
 * cut off at the end, or a header edited, fail to open. The key is new for
 * every file (a fresh salt), so numbered nonces never repeat under one key.
 */
export const CHUNK_BYTES = 64 * 1024;
const TAG_BYTES = 16;

function nonce(index: number, last: boolean): Buffer {
  const n = Buffer.alloc(12);
  n.writeUIntBE(index, 5, 6);
  n[11] = last ? 1 : 0;
  return n;
}

/** Seals what is pushed into chunks and hands each to `sink` in order; `end()` seals the last. */
export class ChunkSealer {
  readonly #key: Buffer;
  readonly #aad: Buffer;
  readonly #sink: (sealed: Buffer) => Promise<unknown>;
  #pending: Buffer[] = [];
  #size = 0;
  #index = 0;

  constructor(key: Buffer, aad: Buffer, sink: (sealed: Buffer) => Promise<unknown>) {
    this.#key = key;
    this.#aad = aad;
    this.#sink = sink;
  }

  async push(data: Buffer): Promise<void> {
    this.#pending.push(data);
    this.#size += data.length;
    // One chunk is always held back, so the last one can be marked as such at end().
    while (this.#size > CHUNK_BYTES) {
      const all = Buffer.concat(this.#pending);
      this.#pending = [all.subarray(CHUNK_BYTES)];
      this.#size = all.length - CHUNK_BYTES;
      await this.#seal(all.subarray(0, CHUNK_BYTES), false);
    }
  }

  async end(): Promise<void> {
    await this.#seal(Buffer.concat(this.#pending), true);
    this.#pending = [];
    this.#size = 0;
  }

  async #seal(plain: Buffer, last: boolean): Promise<void> {
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce(this.#index++, last)).setAAD(this.#aad);
    await this.#sink(Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]));
  }
}

/**
 * The chunks of a sealed body from `start` to `end` of the file, opened in
 * order. A first chunk that does not open means the wrong passphrase (or a
 * file altered from its start); a later one, a damaged file.
 */
export async function* openChunks(file: FileHandle, start: number, end: number, key: Buffer, aad: Buffer, name: string): AsyncGenerator<Buffer> {
  const record = CHUNK_BYTES + TAG_BYTES;
  const buffer = Buffer.alloc(record);
  if (end - start < TAG_BYTES) throw damaged(name);
  for (let index = 0, at = start; at < end; index++, at += record) {
    const length = Math.min(record, end - at);
    if (length < TAG_BYTES) throw damaged(name);
    const { bytesRead } = await file.read(buffer, 0, length, at);
    if (bytesRead !== length) throw damaged(name);
    const decipher = createDecipheriv('aes-256-gcm', key, nonce(index, at + length === end)).setAAD(aad);
    decipher.setAuthTag(buffer.subarray(length - TAG_BYTES, length));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(buffer.subarray(0, length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw index === 0 ? wrongPassphrase() : damaged(name);
    }
    yield plain;
  }
}

export const wrongPassphrase = () => invalidField('passphrase', 'Backup.WrongPassphrase', 'The passphrase does not open this backup (or the backup was altered).');

export const damaged = (file: string) => new EngineError('validation', 'Backup.Damaged', `${file} is damaged or was altered: part of it does not open with its passphrase.`);
