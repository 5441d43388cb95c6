import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32, createInflateRaw } from 'node:zlib';
import { KeptInflater } from './kept-zlib.js';

/**
 * Reads what zip-writer.ts writes (and ZIP files like it): the central
 * directory walked in pieces, one entry's bytes read at a time. Nothing
 * holds the whole directory or the whole archive.
 */

export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
}

const CHUNK = 1 << 20;
const MAX32 = 0xffffffff;

export class ZipFormatError extends Error {}

export class ZipReader {
  readonly #fd: number;
  readonly #length: number;
  readonly count: number;
  readonly #cdOffset: number;
  readonly #cdSize: number;
  readonly #inflater = new KeptInflater();
  /** Compressed bytes of small entries are read into this one buffer. */
  readonly #raw = Buffer.allocUnsafe(CHUNK);
  readonly #head = Buffer.allocUnsafe(30);

  constructor(readonly path: string) {
    this.#fd = openSync(path, 'r');
    this.#length = fstatSync(this.#fd).size;
    const tailLength = Math.min(this.#length, 22 + 0xffff + 20);
    const tail = this.#read(this.#length - tailLength, tailLength);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === 0x06054b50) { at = i; break; }
    if (at < 0) throw new ZipFormatError('not a ZIP file: no end of central directory record');
    let count = tail.readUInt16LE(at + 10);
    let cdSize = tail.readUInt32LE(at + 12);
    let cdOffset = tail.readUInt32LE(at + 16);
    if (at >= 20 && tail.readUInt32LE(at - 20) === 0x07064b50) {
      const recordAt = Number(tail.readBigUInt64LE(at - 20 + 8));
      const record = this.#read(recordAt, 56);
      if (record.readUInt32LE(0) !== 0x06064b50) throw new ZipFormatError('the ZIP64 end record is not where its locator says');
      count = Number(record.readBigUInt64LE(32));
      cdSize = Number(record.readBigUInt64LE(40));
      cdOffset = Number(record.readBigUInt64LE(48));
    }
    this.count = count;
    this.#cdOffset = cdOffset;
    this.#cdSize = cdSize;
  }

  close(): void {
    this.#inflater.close();
    closeSync(this.#fd);
  }

  #read(position: number, length: number, into?: Buffer): Buffer {
    const b = into && into.length >= length ? into.subarray(0, length) : Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(this.#fd, b, got, length - got, position + got);
      if (n === 0) throw new ZipFormatError('the ZIP file ends early');
      got += n;
    }
    return b;
  }

  /** Every entry of the central directory, in its order. */
  *entries(): Generator<ZipEntry> {
    let position = this.#cdOffset;
    const end = this.#cdOffset + this.#cdSize;
    let buffer = Buffer.alloc(0);
    let at = 0;
    const need = (n: number) => {
      if (buffer.length - at >= n) return;
      const more = this.#read(position, Math.min(Math.max(CHUNK, n), end - position));
      position += more.length;
      buffer = Buffer.concat([buffer.subarray(at), more]);
      at = 0;
      if (buffer.length < n) throw new ZipFormatError('the central directory ends early');
    };
    for (let i = 0; i < this.count; i++) {
      need(46);
      if (buffer.readUInt32LE(at) !== 0x02014b50) throw new ZipFormatError(`central directory entry ${i + 1} is damaged`);
      const method = buffer.readUInt16LE(at + 10);
      const crc = buffer.readUInt32LE(at + 16);
      let compressedSize = buffer.readUInt32LE(at + 20);
      let size = buffer.readUInt32LE(at + 24);
      const nameLength = buffer.readUInt16LE(at + 28);
      const extraLength = buffer.readUInt16LE(at + 30);
      const commentLength = buffer.readUInt16LE(at + 32);
      let offset = buffer.readUInt32LE(at + 42);
      need(46 + nameLength + extraLength + commentLength);
      const name = buffer.toString('utf8', at + 46, at + 46 + nameLength);
      let e = at + 46 + nameLength;
      const extraEnd = e + extraLength;
      while (e + 4 <= extraEnd) {
        const id = buffer.readUInt16LE(e);
        const length = buffer.readUInt16LE(e + 2);
        if (id === 0x0001) {
          let f = e + 4;
          const next = () => { const v = Number(buffer.readBigUInt64LE(f)); f += 8; return v; };
          if (size === MAX32) size = next();
          if (compressedSize === MAX32) compressedSize = next();
          if (offset === MAX32) offset = next();
        }
        e += 4 + length;
      }
      at += 46 + nameLength + extraLength + commentLength;
      yield { name, method, crc, compressedSize, size, offset };
    }
  }

  #dataStart(entry: ZipEntry): number {
    const h = this.#read(entry.offset, 30, this.#head);
    if (h.readUInt32LE(0) !== 0x04034b50) throw new ZipFormatError(`${entry.name}: its local header is damaged`);
    return entry.offset + 30 + h.readUInt16LE(26) + h.readUInt16LE(28);
  }

  /** A small entry's bytes, CRC checked. */
  read(entry: ZipEntry): Buffer {
    return Buffer.from(this.readKept(entry));
  }

  /**
   * A small entry's bytes, CRC checked, in buffers this reader keeps: valid
   * until its next read. A walk of every entry makes no buffer and no zlib
   * context per entry (kept-zlib.ts).
   */
  readKept(entry: ZipEntry): Buffer {
    const raw = this.#read(this.#dataStart(entry), entry.compressedSize, this.#raw);
    const data = entry.method === 0 ? raw : entry.method === 8 ? this.#inflater.inflate(raw, entry.size) : null;
    if (!data) throw new ZipFormatError(`${entry.name}: compression method ${entry.method} is not read here`);
    if (data.length !== entry.size || crc32(data) !== entry.crc) throw new ZipFormatError(`${entry.name}: its bytes do not match the CRC-32 and size of the ZIP`);
    return data;
  }

  /** An entry of any size, in pieces, CRC checked at the end. */
  async *stream(entry: ZipEntry): AsyncGenerator<Buffer> {
    const start = this.#dataStart(entry);
    const inflate = entry.method === 8 ? createInflateRaw() : null;
    let crc = 0;
    let size = 0;
    const source = async function* (this: ZipReader) {
      for (let at = 0; at < entry.compressedSize; at += CHUNK) yield this.#read(start + at, Math.min(CHUNK, entry.compressedSize - at));
    }.call(this);
    const out = inflate ? (async function* () {
      const pump = (async () => {
        for await (const piece of source) if (!inflate.write(piece)) await new Promise((r) => inflate.once('drain', r));
        inflate.end();
      })();
      pump.catch((e: Error) => inflate.destroy(e));
      for await (const piece of inflate) yield piece as Buffer;
      await pump;
    })() : source;
    for await (const piece of out) {
      crc = crc32(piece, crc);
      size += piece.length;
      yield piece;
    }
    if (size !== entry.size || crc !== entry.crc) throw new ZipFormatError(`${entry.name}: its bytes do not match the CRC-32 and size of the ZIP`);
  }
}
