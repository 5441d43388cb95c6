import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { cutCertificate, type CutDocument } from './certificate-text.js';
import { dictionaryBytes } from './dictionaries.js';

/**
 * zstd from node:zlib (docs/store.md, "Compressed documents"). Compression is
 * asynchronous, on libuv's thread pool, and runs before the transaction that
 * stores the result; decompression is synchronous (tens of microseconds).
 * No store here: interning the certificate text is document-store.ts's.
 */

/** node:zlib's zstd (Node 22.19+, 24.6+ with dictionaries), which the installed @types/node predates. */
interface ZstdOptions {
  readonly dictionary?: Buffer;
  readonly params?: Record<number, number>;
}
interface Zstd {
  zstdCompress(input: Buffer, options: ZstdOptions, done: (error: Error | null, result: Buffer) => void): void;
  zstdCompressSync(input: Buffer, options: ZstdOptions): Buffer;
  zstdDecompressSync(input: Buffer, options: ZstdOptions): Buffer;
  readonly constants: Record<'ZSTD_c_compressionLevel' | 'ZSTD_c_checksumFlag' | 'ZSTD_c_contentSizeFlag' | 'ZSTD_c_dictIDFlag', number>;
}
const zstd = zlib as unknown as Zstd;
const { constants } = zstd;

/**
 * Node.js before 22.19 and 24.6 has zstd but ignores the `dictionary` option
 * without a word (measured on 22.15, 22.18, 24.0 and 24.5): a store written
 * there would name a dictionary its frames never used, and one written with a
 * dictionary would not read there. So the option is tried once, on a sample:
 * a frame made with a dictionary must not decompress without it.
 */
let zstdChecked = false;
function needZstd(): void {
  if (zstdChecked) return;
  const need = `stored documents need Node.js 22.19 or newer, or 24.6 or newer (the install brings 24)`;
  if (typeof zstd.zstdCompress !== 'function') throw new Error(`node:zlib has no zstd on Node.js ${process.versions.node}: ${need}`);
  const dictionary = Buffer.from('<ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF>'.repeat(4));
  const frame = zstd.zstdCompressSync(dictionary.subarray(0, 80), { dictionary });
  let honoured = false;
  try {
    zstd.zstdDecompressSync(frame, {});
  } catch {
    honoured = true;
  }
  if (!honoured) throw new Error(`node:zlib on Node.js ${process.versions.node} ignores zstd dictionaries: ${need}`);
  zstdChecked = true;
}


/** Chosen by the signing and issue-http benches (docs/performance.md). */
export const DEFAULT_LEVEL = 3;

export interface CompressedDocument {
  /** SHA-256 of the exact bytes given: stored beside the blob, checked on every read. */
  readonly sha256: Buffer;
  readonly dictionaryId: number;
  /** The certificate text cut out, or null. */
  readonly certificate: CutDocument | null;
  readonly frame: Buffer;
}

export const sha256Of = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

/** The options of every frame the codec writes (frame-encoder.ts keeps a context made with them). */
export function options(dictionaryId: number, level: number): ZstdOptions {
  const dictionary = dictionaryId === 0 ? undefined : dictionaryBytes(dictionaryId);
  if (dictionaryId !== 0 && !dictionary) throw new Error(`No shipped dictionary has id ${dictionaryId}`);
  return frameOptions(dictionary ?? undefined, level);
}

function frameOptions(dictionary: Buffer | undefined, level: number): ZstdOptions {
  return {
    ...(dictionary && { dictionary }),
    params: {
      [constants.ZSTD_c_compressionLevel]: level,
      [constants.ZSTD_c_checksumFlag]: 0,
      [constants.ZSTD_c_contentSizeFlag]: 1,
      // The blob's second byte names the dictionary; the frame need not repeat it.
      [constants.ZSTD_c_dictIDFlag]: 0,
    },
  };
}

/** A frame as the codec writes it, through node:zlib's public path (a context of its own). */
export const compressFrame = (content: Buffer, dictionaryId: number, level: number): Buffer => zstd.zstdCompressSync(content, options(dictionaryId, level));

/** Writes frames as compressFrame does; frame-encoder.ts's kept contexts for a walk over many documents. */
export type FrameEncoder = (content: Buffer, dictionaryId: number, level: number) => Buffer;

export async function compressDocument(bytes: Buffer, dictionaryId: number, level = DEFAULT_LEVEL, encoder: FrameEncoder = compressFrame): Promise<CompressedDocument> {
  needZstd();
  const certificate = cutCertificate(bytes);
  // On the calling thread: node:zlib's thread-pool zstdCompress cost twice the CPU per document
  // (about 420 against 200 µs at level 3, dictionary 2) and ten times as much with many at once
  // (2 ms each, 3,000 queued), measured with the bench pool; 200 µs on the event loop is the cheaper price.
  const frame = encoder(certificate ? certificate.rest : bytes, dictionaryId, level);
  return { sha256: sha256Of(bytes), dictionaryId, certificate, frame };
}

/** A frame as the codec writes it, on the calling thread: for measuring a dictionary not shipped yet (scripts/train-dictionary.ts, the benches). */
export const compressFrameSync = (bytes: Buffer, dictionary: Buffer | undefined, level: number): Buffer => zstd.zstdCompressSync(bytes, frameOptions(dictionary, level));

/** What a blob itself makes unreadable (an unknown dictionary id, a damaged frame), as opposed to the installation (no zstd, a dictionary file missing). */
export class FrameUnreadable extends Error {}

/** The frame's content; throws FrameUnreadable rather than return other bytes. */
export function decompressFrame(frame: Buffer, dictionaryId: number): Buffer {
  needZstd();
  const dictionary = dictionaryId === 0 ? undefined : dictionaryBytes(dictionaryId);
  if (dictionaryId !== 0 && !dictionary) throw new FrameUnreadable(`dictionary ${dictionaryId} was never shipped`);
  try {
    return zstd.zstdDecompressSync(frame, dictionary ? { dictionary } : {});
  } catch (e) {
    throw new FrameUnreadable((e as Error).message);
  }
}
