// Document packing off the loading thread: worker threads (bench/pack-worker.ts) each run the
// engine's codec through bench/stored-documents.ts on whole batches, so the thread that makes and
// inserts the rows only copies each batch's documents into one buffer and back. Batches go to the
// workers in turn and come back in the order given.
import { Worker } from 'node:worker_threads';
import type { PackReply, PackRequest } from './pack-worker.js';
import { packerFor, type CertificateIds, type StoredDocument } from './stored-documents.js';

const YOUNG_MB = 8;
/** Bundled (bench/bulk-load.ts's child), the worker is JavaScript beside this code; else TypeScript. */
const BUNDLED = import.meta.url.endsWith('.mjs');
const WORKER = new URL(BUNDLED ? './pack-worker.mjs' : './pack-worker.ts', import.meta.url);
/**
 * The TypeScript worker needs tsx, whether or not this process was started with it (a vitest run
 * is not). Left unset, a worker inherits this process's options (V8 flags apart).
 */
const EXEC_ARGV = BUNDLED || process.execArgv.some((a) => a.includes('tsx')) ? undefined : ['--import', 'tsx'];

export interface Packing {
  /** The stored form of each document, in order; a missing one (length -1) stays null. */
  pack(documents: JoinedDocuments): Promise<(StoredDocument | null)[]>;
  close(): Promise<void>;
}

/** Documents one after the other in a buffer of their own (it is handed to a worker, not copied). */
export interface JoinedDocuments {
  /** The documents from byte 0 on; any bytes after the last are unused. */
  readonly bytes: ArrayBuffer;
  /** Each document's length, -1 for a missing one (no RFCE). */
  readonly lengths: Int32Array;
}

/**
 * Collects documents into one buffer as they are made, so each document's own Buffer is garbage at
 * once (while young) rather than kept, with the batch, until the batch is sent.
 */
export function documentJoiner(expected: number): { add(document: Buffer | null): void; done(): JoinedDocuments } {
  // Half again what an e-CF and its RFCE take on average (7.9 KB the two), so it seldom grows.
  let bytes = Buffer.allocUnsafeSlow(Math.max(1, expected) * 6_000);
  const lengths: number[] = [];
  let at = 0;
  return {
    add(document) {
      if (!document) return void lengths.push(-1);
      if (at + document.length > bytes.length) {
        const bigger = Buffer.allocUnsafeSlow(Math.max(2 * bytes.length, at + document.length));
        bytes.copy(bigger, 0, 0, at);
        bytes = bigger;
      }
      at += document.copy(bytes, at);
      lengths.push(document.length);
    },
    done: () => ({ bytes: bytes.buffer as ArrayBuffer, lengths: Int32Array.from(lengths) }),
  };
}

/** `documents` joined (for a few documents; a loader joins them as it makes them). */
export function joinDocuments(documents: readonly (Buffer | null)[]): JoinedDocuments {
  const joiner = documentJoiner(documents.length);
  for (const d of documents) joiner.add(d);
  return joiner.done();
}

/** `count` worker threads; 0 packs on the calling thread (for comparison: BENCH_LOAD_WORKERS=0). */
export function packingWorkers(certificates: CertificateIds, count: number): Packing {
  if (count === 0) {
    const pack = packerFor(certificates);
    return {
      pack: async ({ bytes, lengths }) => {
        let at = 0;
        return Array.from(lengths, (n) => (n < 0 ? null : pack(Buffer.from(bytes, (at += n) - n, n))));
      },
      close: async () => {},
    };
  }
  const pending = new Map<number, { resolve: (r: (StoredDocument | null)[]) => void; reject: (e: Error) => void }>();
  let failure: Error | null = null;
  const fail = (e: Error) => {
    failure ??= e;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  const workers = Array.from({ length: count }, () => {
    // A small young generation: a batch's garbage is freed sooner, and memory stays flat (measured: bench/bulk-load.ts).
    const w = new Worker(WORKER, { workerData: { certificates }, execArgv: EXEC_ARGV, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
    w.on('message', (reply: PackReply) => {
      const p = pending.get(reply.seq);
      if (!p) return;
      pending.delete(reply.seq);
      if ('error' in reply) return p.reject(new Error(`packing worker: ${reply.error}`));
      const blobs = Buffer.from(reply.blobs);
      const digests = Buffer.from(reply.digests);
      let at = 0;
      p.resolve(Array.from(reply.lengths, (n, i) => (n < 0 ? null : { blob: blobs.subarray(at, (at += n)), sha256: digests.subarray(32 * i, 32 * i + 32) })));
    });
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`packing worker exited (${code})`)));
    return w;
  });
  let seq = 0;
  return {
    pack({ bytes, lengths }) {
      if (failure) return Promise.reject(failure);
      const request: PackRequest = { seq: ++seq, bytes, lengths };
      return new Promise((resolve, reject) => {
        pending.set(request.seq, { resolve, reject });
        workers[request.seq % workers.length]!.postMessage(request, [request.bytes]);
      });
    },
    async close() {
      failure ??= new Error('packing closed');
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
