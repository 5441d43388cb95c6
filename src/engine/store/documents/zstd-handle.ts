import * as zlib from 'node:zlib';

/**
 * node:zlib's zstd streams keep one native context for their life; their
 * `_handle` lets a walk reuse it for document after document instead of
 * making a context (and loading the dictionary) per document. It is not a
 * public interface: the encoder and the decoder that use it check every
 * frame and go the public way whenever it does not behave as below.
 */
export interface NativeHandle {
  writeSync(flush: number, input: Buffer, inOffset: number, inLength: number, output: Buffer, outOffset: number, outLength: number): void;
  close(): void;
  onerror: (message: string, errno: number) => void;
}

export interface KeptContext {
  /** Kept so the stream lives as long as its handle is used. */
  readonly stream: object;
  readonly handle: NativeHandle;
  /** [output room left, input left] after each writeSync. */
  readonly state: Uint32Array;
  failed: boolean;
}

type Factory = (options: object) => { _handle?: NativeHandle; _writeState?: Uint32Array };

/** A stream's native context, or null when this runtime's streams do not have the expected handle. */
export function openKeptContext(kind: 'createZstdCompress' | 'createZstdDecompress', options: object): KeptContext | null {
  const stream = (zlib as unknown as Partial<Record<typeof kind, Factory>>)[kind]?.(options);
  const handle = stream?._handle;
  const state = stream?._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || !(state instanceof Uint32Array) || state.length < 2) return null;
  const context: KeptContext = { stream: stream!, handle, state, failed: false };
  handle.onerror = () => {
    context.failed = true;
  };
  return context;
}
