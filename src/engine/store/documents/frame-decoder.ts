import { openKeptContext, type KeptContext } from './zstd-handle.js';
import { decompressFrame } from './codec.js';
import { dictionaryBytes } from './dictionaries.js';

/**
 * Decompressing many frames with one zstd context per dictionary, for walks
 * over the whole store (`ecf store verify`; docs/store.md, "Verifying the
 * store"). node:zlib's zstdDecompressSync makes a context and loads the
 * dictionary again on every call (about 30 of the 48 µs a document takes),
 * and its streams end at the first frame, so a kept context is only reachable
 * through the stream's native handle (`writeSync`, `_writeState`), as
 * node:zlib's own synchronous path drives it (Node 22 and 24). That is not a
 * public interface, so nothing here decides a verdict: whatever is unexpected
 * (no such handle, an error, input left over, a size other than the frame
 * header's) drops the context and the frame is decompressed again by
 * `decompressFrame`, whose answer stands; and a caller that finds the result's
 * digest wrong asks `decompressFrame` again too (document-store.ts).
 */
export interface FrameDecoder {
  /** The frame's content; throws FrameUnreadable (from decompressFrame) rather than return other bytes. */
  decompress(frame: Buffer, dictionaryId: number): Buffer;
  /** Whether a wrong digest should be checked again with decompressFrame. */
  readonly kept: boolean;
}

/** One context per call: node:zlib's public path. */
export const ONE_SHOT: FrameDecoder = { decompress: decompressFrame, kept: false };

/** Larger documents go the public way (a damaged header must not allocate gigabytes). */
const MAX_CONTENT = 16 * 1024 * 1024;
/** Output room for frames that do not state their size; a larger document goes the public way. */
const SCRATCH = 1024 * 1024;
const ZSTD_E_END = 2;
const MAGIC = 0xfd2fb528;

/** The content size a zstd frame header states, or null when it states none or is no frame (RFC 8878, 3.1.1.1). */
export function frameContentSize(frame: Buffer): number | null {
  if (frame.length < 6 || frame.readUInt32LE(0) !== MAGIC) return null;
  const descriptor = frame[4]!;
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]!;
  const width = [singleSegment ? 1 : 0, 2, 4, 8][sizeFlag]!;
  if (width === 0 || frame.length < at + width) return null;
  if (width === 1) return frame[at]!;
  if (width === 2) return frame.readUInt16LE(at) + 256;
  if (width === 4) return frame.readUInt32LE(at);
  const size = frame.readBigUInt64LE(at);
  return size > BigInt(MAX_CONTENT) ? MAX_CONTENT + 1 : Number(size);
}

/**
 * Whether `frame` is exactly one whole zstd frame by its own structure: the header, every block
 * up to the one marked last, and the checksum when the header announces one (RFC 8878, 3.1.1).
 * A kept context fed a cut frame gives what it decoded so far without an error, so the fast
 * path takes only frames this accepts.
 */
export function isWholeFrame(frame: Buffer): boolean {
  if (frame.length < 6 || frame.readUInt32LE(0) !== MAGIC) return false;
  const descriptor = frame[4]!;
  const singleSegment = (descriptor >> 5) & 1;
  const sizeWidth = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6]!;
  let at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]! + sizeWidth;
  for (;;) {
    if (at + 3 > frame.length) return false;
    const header = frame.readUIntLE(at, 3);
    const type = (header >> 1) & 3;
    if (type === 3) return false;
    at += 3 + (type === 1 ? 1 : header >>> 3);
    if (header & 1) break;
  }
  return at + ((descriptor >> 2) & 1 ? 4 : 0) === frame.length;
}


const openContext = (dictionary: Buffer | undefined) => openKeptContext('createZstdDecompress', dictionary ? { dictionary } : {});

/** Failures in a row after which a dictionary goes the public way for the rest of the walk (the handle may not work as expected on this runtime). */
const GIVE_UP_AFTER = 8;

/** A decoder that keeps one context per dictionary for as long as it is used (one walk). */
export function keptContextDecoder(): FrameDecoder {
  // null: this dictionary goes the public way from now on.
  const contexts = new Map<number, KeptContext | null>();
  const failures = new Map<number, number>();
  const contextFor = (id: number): KeptContext | null => {
    if (contexts.has(id)) return contexts.get(id)!;
    const dictionary = id === 0 ? undefined : dictionaryBytes(id);
    const opened = dictionary === null ? null : openContext(dictionary);
    contexts.set(id, opened);
    return opened;
  };
  /** `counts`: a frame the context failed on (not one merely larger than the buffer). */
  const failed = (id: number, context: KeptContext, counts: boolean) => {
    try {
      context.handle.close();
    } catch {
      // Closing a context that failed is best effort.
    }
    const inARow = (failures.get(id) ?? 0) + (counts ? 1 : 0);
    failures.set(id, inARow);
    // Opened again for the next frame: one damaged frame must not slow the rest of the walk.
    if (inARow >= GIVE_UP_AFTER) contexts.set(id, null);
    else contexts.delete(id);
  };
  // Frames compressed on the thread pool (zstdCompress) do not state their size: they are decoded into this buffer and copied out.
  let scratch: Buffer | undefined;
  const fast = (frame: Buffer, id: number): Buffer | null => {
    if (!isWholeFrame(frame)) return null;
    const size = frameContentSize(frame);
    if (size !== null && size > MAX_CONTENT) return null;
    const context = contextFor(id);
    if (!context) return null;
    const output = size === null ? (scratch ??= Buffer.allocUnsafe(SCRATCH)) : Buffer.allocUnsafe(size + 1);
    try {
      context.handle.writeSync(ZSTD_E_END, frame, 0, frame.length, output, 0, output.length);
    } catch {
      context.failed = true;
    }
    const [outLeft, inLeft] = context.state;
    const produced = output.length - outLeft!;
    // A full buffer may hold only part of the content: the public path decides.
    if (context.failed || inLeft !== 0 || outLeft === 0 || (size !== null && produced !== size)) {
      failed(id, context, context.failed || outLeft !== 0);
      return null;
    }
    failures.delete(id);
    return size === null ? Buffer.from(output.subarray(0, produced)) : output.subarray(0, produced);
  };
  return {
    kept: true,
    decompress: (frame, dictionaryId) => fast(frame, dictionaryId) ?? decompressFrame(frame, dictionaryId),
  };
}
