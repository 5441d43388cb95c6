// A worker thread of bench/packing.ts: packs each document of a batch as the engine stores it
// (bench/stored-documents.ts) and sends the blobs and digests back in two transferred buffers.
import { parentPort, workerData } from 'node:worker_threads';
import { packerFor, type CertificateIds } from './stored-documents.js';

export interface PackRequest {
  readonly seq: number;
  /** The documents one after the other; `lengths[i]` is -1 for a missing one (no RFCE). */
  readonly bytes: ArrayBuffer;
  readonly lengths: Int32Array;
}

export type PackReply =
  | { readonly seq: number; readonly blobs: ArrayBuffer; readonly lengths: Int32Array; readonly digests: ArrayBuffer }
  | { readonly seq: number; readonly error: string };

const pack = packerFor((workerData as { certificates: CertificateIds }).certificates);
/** `gc` when the load's process runs with --expose-gc (bench/bulk-load.ts): see collectYoung. */
const collect = (globalThis as { gc?: (o: { type: 'minor' }) => void }).gc;
/**
 * node:zlib gives each frame a 64 KB output buffer of its own. V8 counts those as external memory
 * and collects them only once about 64 MB of them pile up, so a young-generation collection every
 * COLLECT_EVERY documents (a fraction of a millisecond: little survives) keeps that pile small.
 */
const COLLECT_EVERY = 32;
let packed = 0;

parentPort!.on('message', ({ seq, bytes, lengths }: PackRequest) => {
  try {
    const blobs: Buffer[] = [];
    const out = new Int32Array(lengths.length);
    const digests = Buffer.alloc(32 * lengths.length);
    let at = 0;
    for (let i = 0; i < lengths.length; i++) {
      const n = lengths[i]!;
      if (n < 0) {
        out[i] = -1;
        continue;
      }
      const stored = pack(Buffer.from(bytes, at, n));
      if (collect && ++packed % COLLECT_EVERY === 0) collect({ type: 'minor' });
      at += n;
      blobs.push(stored.blob);
      out[i] = stored.blob.length;
      stored.sha256.copy(digests, 32 * i);
    }
    const joined = Buffer.concat(blobs);
    // A buffer of its own (not a slice of Node's shared pool) so it can be transferred.
    const transferable = joined.byteOffset === 0 && joined.byteLength === joined.buffer.byteLength ? joined.buffer : joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.byteLength);
    const reply: PackReply = { seq, blobs: transferable as ArrayBuffer, lengths: out, digests: digests.buffer as ArrayBuffer };
    parentPort!.postMessage(reply, [reply.blobs, reply.digests]);
  } catch (e) {
    parentPort!.postMessage({ seq, error: (e as Error).stack ?? String(e) } satisfies PackReply);
  }
});
