// One zstd compression context kept for a whole load, for the bench's packers. node:zlib's
// zstdCompressSync makes a context and loads the dictionary again for every document: 334 µs a
// document against 27 µs through one kept context (the bench pool, dictionary 2, level 3), the same
// frame byte for byte (test/bench/bulk-load.test.ts compares them). The kept context is reachable
// only through the stream's native handle, as node:zlib's own synchronous path drives it (as the
// engine's kept-context decoder does, src/engine/store/documents/frame-decoder.ts); anything
// unexpected falls back to the public path for that document.
import * as zlib from 'node:zlib';
import { compressFrameSync } from '../src/engine/store/documents/codec.js';

interface NativeHandle {
  writeSync(flush: number, input: Buffer, inOffset: number, inLength: number, output: Buffer, outOffset: number, outLength: number): void;
  onerror: (message: string, errno: number) => void;
}

const ZSTD_E_END = 2;
/** Output room: a document whose frame would not fit goes the public way. */
const ROOM = 1024 * 1024;

/** `compress(bytes)` gives compressFrameSync(bytes, dictionary, level)'s frame. */
export function keptCompressor(dictionary: Buffer | undefined, level: number): (bytes: Buffer) => Buffer {
  const C = zlib.constants as unknown as Record<string, number>;
  const create = (zlib as unknown as { createZstdCompress?: (o: object) => { _handle?: NativeHandle; _writeState?: Uint32Array } }).createZstdCompress;
  // The codec's frame parameters (src/engine/store/documents/codec.ts frameOptions).
  const stream = create?.({
    ...(dictionary && { dictionary }),
    params: { [C.ZSTD_c_compressionLevel!]: level, [C.ZSTD_c_checksumFlag!]: 0, [C.ZSTD_c_contentSizeFlag!]: 1, [C.ZSTD_c_dictIDFlag!]: 0 },
  });
  const handle = stream?._handle;
  const state = stream?._writeState;
  const publicPath = (bytes: Buffer) => compressFrameSync(bytes, dictionary, level);
  if (!handle || typeof handle.writeSync !== 'function' || !(state instanceof Uint32Array)) return publicPath;
  let broken = false;
  handle.onerror = () => {
    broken = true;
  };
  const output = Buffer.allocUnsafe(ROOM);
  return (bytes) => {
    if (broken || bytes.length > ROOM / 2) return publicPath(bytes);
    try {
      handle.writeSync(ZSTD_E_END, bytes, 0, bytes.length, output, 0, output.length);
    } catch {
      broken = true;
    }
    const [outLeft, inLeft] = state;
    // The whole input taken and the frame ended with room to spare: else the public path decides.
    if (broken || inLeft !== 0 || !outLeft) {
      broken = true;
      return publicPath(bytes);
    }
    return Buffer.from(output.subarray(0, output.length - outLeft));
  };
}
