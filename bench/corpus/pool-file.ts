// The pool's cache file (.cache/bench-pool/): its name, its format, and a reader that keeps the
// documents on disk. A bulk loader reads each document when it uses it (the operating system's page
// cache holds the file), so its memory does not hold the pool's 79 MB; nothing here loads the
// signing code that builds the pool (pool.ts).
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CorpusType } from './realistic.js';

export interface PoolDocument {
  readonly type: CorpusType;
  readonly encf: string;
  readonly lines: number;
  readonly xml: Buffer;
  readonly rfce: Buffer | null;
}

const FORMAT = 1;
/** The seed of the pool the benches use. */
export const POOL_SEED = 20261127;
const root = fileURLToPath(new URL('../..', import.meta.url));

export const poolFile = (size: number, seed: number): string => join(root, '.cache', 'bench-pool', `pool-v${FORMAT}-${seed}-${size}.bin`);

/** [type, encf, lines, xml length, rfce length or -1] per document. */
type Entry = [CorpusType, string, number, number, number];

/** [u32 json length][json: an Entry per document][bytes: each xml, then its rfce if any...] */
export function encodePool(docs: readonly PoolDocument[]): Buffer {
  const index = Buffer.from(JSON.stringify(docs.map((d): Entry => [d.type, d.encf, d.lines, d.xml.length, d.rfce?.length ?? -1])));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(index.length);
  return Buffer.concat([head, index, ...docs.flatMap((d) => (d.rfce ? [d.xml, d.rfce] : [d.xml]))]);
}

export function decodePool(file: Buffer): PoolDocument[] {
  const length = file.readUInt32LE(0);
  const index = JSON.parse(file.subarray(4, 4 + length).toString()) as Entry[];
  let at = 4 + length;
  const take = (n: number) => file.subarray(at, (at += n));
  return index.map(([type, encf, lines, xml, rfce]) => ({ type, encf, lines, xml: take(xml), rfce: rfce < 0 ? null : take(rfce) }));
}

/**
 * The pool of `file` (written by documentPool()), each document's bytes read from the file at each
 * use of `xml` or `rfce` (a fresh Buffer each time). The file stays open until `close`.
 */
export function poolOnDisk(file: string): { readonly documents: PoolDocument[]; close(): void } {
  const fd = openSync(file, 'r');
  const read = (length: number, position: number): Buffer => {
    const out = Buffer.allocUnsafe(length);
    for (let done = 0; done < length; ) {
      const n = readSync(fd, out, done, length - done, position + done);
      if (n === 0) throw new Error(`${file} ends inside a document: delete it to rebuild the pool`);
      done += n;
    }
    return out;
  };
  const length = read(4, 0).readUInt32LE(0);
  const index = JSON.parse(read(length, 4).toString()) as Entry[];
  let at = 4 + length;
  const documents = index.map(([type, encf, lines, xmlLength, rfceLength]): PoolDocument => {
    const xmlAt = at;
    const rfceAt = at + xmlLength;
    at = rfceAt + Math.max(0, rfceLength);
    return {
      type,
      encf,
      lines,
      get xml() {
        return read(xmlLength, xmlAt);
      },
      get rfce() {
        return rfceLength < 0 ? null : read(rfceLength, rfceAt);
      },
    };
  });
  return { documents, close: () => closeSync(fd) };
}
