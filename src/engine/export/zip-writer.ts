import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { crc32, createDeflateRaw } from 'node:zlib';
import { KeptDeflater } from './kept-zlib.js';

/**
 * A streaming ZIP writer (APPNOTE 6.3): deflate, UTF-8 names, ZIP64 where
 * a count, a size or an offset needs it. Nothing grows with the archive:
 * file data goes to disk as it comes, and the central directory is written
 * to a side file (`<path>.cd`) as entries are added, then appended at the
 * end. An entry given as a buffer has its sizes in its local header; an
 * entry streamed from a file gets a data descriptor after its data.
 */

export interface ZipEntryInfo {
  readonly name: string;
  readonly size: number;
  readonly sha256: string;
}

const FLAG_UTF8 = 0x0800;
const FLAG_DESCRIPTOR = 0x0008;
const DEFLATE = 8;
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const VERSION_ZIP64 = 45;
const VERSION_DEFLATE = 20;
const MADE_BY_UNIX = 3 << 8;
const FILE_MODE = 0o100644 << 16;
const FLUSH_AT = 1 << 20;

/**
 * A file written through one kept buffer, flushed when full: few system
 * calls for many small entries, and no buffer made per write (what is
 * written is copied in at once, so the caller may reuse its own).
 */
class BufferedFile {
  readonly fd: number;
  position = 0;
  readonly #buffer = Buffer.allocUnsafe(FLUSH_AT);
  #pending = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }
  write(b: Buffer): void {
    this.position += b.length;
    if (this.#pending + b.length > FLUSH_AT) this.flush();
    if (b.length >= FLUSH_AT) {
      writeAll(this.fd, b);
      return;
    }
    this.#pending += b.copy(this.#buffer, this.#pending);
  }
  flush(): void {
    if (this.#pending === 0) return;
    writeAll(this.fd, this.#buffer.subarray(0, this.#pending));
    this.#pending = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

function writeAll(fd: number, b: Buffer): void {
  let at = 0;
  while (at < b.length) at += writeSync(fd, b, at);
}

/** MS-DOS date and time (local fields taken as given: the instant's UTC ones). */
function dosDateTime(at: Date): { time: number; date: number } {
  const year = Math.max(1980, at.getUTCFullYear());
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}

export class ZipWriter {
  readonly #out: BufferedFile;
  readonly #cd: BufferedFile;
  readonly #stamp: { time: number; date: number };
  readonly #deflater: KeptDeflater;
  /** Headers are built here and copied out: nothing allocated per entry for them. */
  readonly #header = Buffer.allocUnsafe(46 + 0xffff + 28);
  #entries = 0;
  #finished = false;

  constructor(readonly path: string, modifiedAt: Date, readonly level = 6) {
    this.#out = new BufferedFile(path);
    this.#cd = new BufferedFile(`${path}.cd`);
    this.#stamp = dosDateTime(modifiedAt);
    this.#deflater = new KeptDeflater(level);
  }

  get entries(): number {
    return this.#entries;
  }

  /** Bytes written so far (the archive's size once finished). */
  get written(): number {
    return this.#out.position;
  }

  /** An entry whose bytes are at hand. */
  addBuffer(name: string, data: Buffer): ZipEntryInfo {
    const nameBytes = Buffer.from(name, 'utf8');
    const compressed = this.#deflater.deflate(data);
    const crc = crc32(data);
    const offset = this.#out.position;
    const big = data.length >= MAX32 || compressed.length >= MAX32;
    const extra = big ? this.#zip64Extra([data.length, compressed.length]) : Buffer.alloc(0);
    this.#out.write(this.#localHeader(nameBytes, extra, 0, crc, big ? MAX32 : compressed.length, big ? MAX32 : data.length, big));
    this.#out.write(compressed);
    this.#central(nameBytes, 0, crc, compressed.length, data.length, offset);
    return { name, size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
  }

  /** An entry streamed from a file on disk, any size: its sizes and CRC follow its data. */
  async addFile(name: string, source: string): Promise<ZipEntryInfo> {
    const nameBytes = Buffer.from(name, 'utf8');
    const offset = this.#out.position;
    this.#out.write(this.#localHeader(nameBytes, this.#zip64Extra([0, 0]), FLAG_DESCRIPTOR, 0, MAX32, MAX32, true));
    const hash = createHash('sha256');
    let crc = 0;
    let size = 0;
    let compressedSize = 0;
    const deflate = createDeflateRaw({ level: this.level });
    const input = createReadStream(source);
    input.on('data', (chunk) => {
      const b = chunk as Buffer;
      hash.update(b);
      crc = crc32(b, crc);
      size += b.length;
    });
    input.on('error', (e) => deflate.destroy(e));
    input.pipe(deflate);
    for await (const chunk of deflate) {
      const b = chunk as Buffer;
      compressedSize += b.length;
      this.#out.write(b);
    }
    this.#out.write(Buffer.concat([Buffer.from([0x50, 0x4b, 0x07, 0x08]), this.#u32(crc), u64(compressedSize), u64(size)]));
    this.#central(nameBytes, FLAG_DESCRIPTOR, crc, compressedSize, size, offset, true);
    return { name, size, sha256: hash.digest('hex') };
  }

  /** Appends the central directory and the end records, writes everything to disk (fsync) and closes. */
  async finish(): Promise<void> {
    if (this.#finished) throw new Error('the ZIP is already finished');
    this.#finished = true;
    this.#deflater.close();
    this.#cd.close();
    const cdOffset = this.#out.position;
    const cdSize = this.#cd.position;
    this.#out.flush();
    for await (const chunk of createReadStream(this.#cd.path)) this.#out.write(chunk as Buffer);
    unlinkSync(this.#cd.path);
    const zip64 = this.#entries >= MAX16 || cdOffset >= MAX32 || cdSize >= MAX32;
    if (zip64) {
      const recordAt = this.#out.position;
      const record = Buffer.alloc(56);
      record.writeUInt32LE(0x06064b50, 0);
      record.writeBigUInt64LE(44n, 4);
      record.writeUInt16LE(MADE_BY_UNIX | VERSION_ZIP64, 12);
      record.writeUInt16LE(VERSION_ZIP64, 14);
      record.writeBigUInt64LE(BigInt(this.#entries), 24);
      record.writeBigUInt64LE(BigInt(this.#entries), 32);
      record.writeBigUInt64LE(BigInt(cdSize), 40);
      record.writeBigUInt64LE(BigInt(cdOffset), 48);
      this.#out.write(record);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(0x07064b50, 0);
      locator.writeBigUInt64LE(BigInt(recordAt), 8);
      locator.writeUInt32LE(1, 16);
      this.#out.write(locator);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Math.min(this.#entries, MAX16), 8);
    end.writeUInt16LE(Math.min(this.#entries, MAX16), 10);
    end.writeUInt32LE(Math.min(cdSize, MAX32), 12);
    end.writeUInt32LE(Math.min(cdOffset, MAX32), 16);
    this.#out.write(end);
    this.#out.flush();
    fsyncSync(this.#out.fd);
    this.#out.close();
  }

  /** Closes without finishing (an export that failed); the caller removes the files. */
  abandon(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#deflater.close();
    for (const f of [this.#out, this.#cd]) {
      try {
        closeSync(f.fd);
      } catch {
        /* already closed */
      }
    }
    try {
      unlinkSync(this.#cd.path);
    } catch {
      /* not there */
    }
  }

  #u32(n: number): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n >>> 0);
    return b;
  }

  #zip64Extra(values: readonly number[]): Buffer {
    const b = Buffer.alloc(4 + 8 * values.length);
    b.writeUInt16LE(0x0001, 0);
    b.writeUInt16LE(8 * values.length, 2);
    values.forEach((v, i) => b.writeBigUInt64LE(BigInt(v), 4 + 8 * i));
    return b;
  }

  #localHeader(name: Buffer, extra: Buffer, flags: number, crc: number, compressed: number, size: number, zip64: boolean): Buffer {
    const h = this.#header.fill(0, 0, 30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION_DEFLATE, 4);
    h.writeUInt16LE(FLAG_UTF8 | flags, 6);
    h.writeUInt16LE(DEFLATE, 8);
    h.writeUInt16LE(this.#stamp.time, 10);
    h.writeUInt16LE(this.#stamp.date, 12);
    h.writeUInt32LE(crc >>> 0, 14);
    h.writeUInt32LE(compressed, 18);
    h.writeUInt32LE(size, 22);
    h.writeUInt16LE(name.length, 26);
    h.writeUInt16LE(extra.length, 28);
    name.copy(h, 30);
    extra.copy(h, 30 + name.length);
    return h.subarray(0, 30 + name.length + extra.length);
  }

  #central(name: Buffer, flags: number, crc: number, compressed: number, size: number, offset: number, forceZip64 = false): void {
    const bigSizes = forceZip64 || size >= MAX32 || compressed >= MAX32;
    const bigOffset = offset >= MAX32;
    const values = [...(bigSizes ? [size, compressed] : []), ...(bigOffset ? [offset] : [])];
    const extra = values.length ? this.#zip64Extra(values) : Buffer.alloc(0);
    const zip64 = values.length > 0;
    const h = this.#header.fill(0, 0, 46);
    h.writeUInt32LE(0x02014b50, 0);
    h.writeUInt16LE(MADE_BY_UNIX | (zip64 ? VERSION_ZIP64 : VERSION_DEFLATE), 4);
    h.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION_DEFLATE, 6);
    h.writeUInt16LE(FLAG_UTF8 | flags, 8);
    h.writeUInt16LE(DEFLATE, 10);
    h.writeUInt16LE(this.#stamp.time, 12);
    h.writeUInt16LE(this.#stamp.date, 14);
    h.writeUInt32LE(crc >>> 0, 16);
    h.writeUInt32LE(bigSizes ? MAX32 : compressed, 20);
    h.writeUInt32LE(bigSizes ? MAX32 : size, 24);
    h.writeUInt16LE(name.length, 28);
    h.writeUInt16LE(extra.length, 30);
    h.writeUInt32LE(FILE_MODE >>> 0, 38);
    h.writeUInt32LE(bigOffset ? MAX32 : offset, 42);
    name.copy(h, 46);
    extra.copy(h, 46 + name.length);
    this.#cd.write(h.subarray(0, 46 + name.length + extra.length));
    this.#entries++;
  }
}
