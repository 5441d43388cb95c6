import { openKeptContext, type KeptContext } from './zstd-handle.js';
import { compressFrame, options, type FrameEncoder } from './codec.js';
import { keptContextDecoder } from './frame-decoder.js';

/**
 * Compressing many documents with one zstd context per dictionary and level:
 * each engine keeps one for the documents it writes (engine.ts), and the
 * in-place conversion of a whole store one for its walk (convert.ts). node:zlib's
 * zstdCompressSync makes a context and loads the dictionary again for every
 * document, and gives each frame a 64 KB output buffer: about 330 µs a
 * document against 30 µs through a kept context (the bench pool, dictionary
 * 2, level 3), the same frame byte for byte, and the native contexts and
 * buffers made and freed per document were what held a converting process's
 * memory (docs/performance.md). As with the kept-context decoder
 * (frame-decoder.ts), the context is reachable only through the stream's
 * native handle, which is not a public interface, so nothing here is trusted:
 * each frame is decompressed again and compared with its content, and
 * whatever is unexpected (no such handle, an error, input left over, a frame
 * that does not give its content back) is compressed the public way instead,
 * whose frame stands.
 */

const ZSTD_E_END = 2;
/** Output room; a larger content goes the public way. */
const ROOM = 1024 * 1024;

const openContext = (dictionaryId: number, level: number) => openKeptContext('createZstdCompress', options(dictionaryId, level));

export interface KeptEncoder {
  readonly encode: FrameEncoder;
  /** Frees the contexts (the walk is over). */
  close(): void;
}

export function keptContextEncoder(): KeptEncoder {
  // null: this dictionary and level go the public way from now on.
  const contexts = new Map<string, KeptContext | null>();
  const decoder = keptContextDecoder();
  let output: Buffer | undefined;
  const drop = (key: string, context: KeptContext) => {
    try {
      context.handle.close();
    } catch {
      // Closing a context that failed is best effort.
    }
    contexts.set(key, null);
  };
  const fast = (content: Buffer, dictionaryId: number, level: number): Buffer | null => {
    if (content.length > ROOM / 2) return null;
    const key = `${dictionaryId}:${level}`;
    if (!contexts.has(key)) contexts.set(key, openContext(dictionaryId, level));
    const context = contexts.get(key);
    if (!context) return null;
    output ??= Buffer.allocUnsafe(ROOM);
    try {
      context.handle.writeSync(ZSTD_E_END, content, 0, content.length, output, 0, output.length);
    } catch {
      context.failed = true;
    }
    const [outLeft, inLeft] = context.state;
    if (context.failed || inLeft !== 0 || !outLeft) {
      drop(key, context);
      return null;
    }
    const frame = Buffer.from(output.subarray(0, output.length - outLeft));
    try {
      if (decoder.decompress(frame, dictionaryId).equals(content)) return frame;
    } catch {
      // Not a frame that gives its content back: the public way decides.
    }
    drop(key, context);
    return null;
  };
  return {
    encode: (content, dictionaryId, level) => fast(content, dictionaryId, level) ?? compressFrame(content, dictionaryId, level),
    close() {
      for (const [key, context] of contexts) if (context) drop(key, context);
    },
  };
}
