// A pool of distinct signed documents for the big-store benches, built once and kept in
// .cache/bench-pool/ (generating 10,000 takes about half a minute): types 31, 32 (with its RFCE
// under DOP 250,000), 33 and 34 in the mix a shop issues, from 1 to 40 lines, all by one issuer
// with one certificate, as one taxpayer's store holds.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDocument, corpusIssuer, generator, type CorpusType } from './realistic.js';

export interface PoolDocument {
  readonly type: CorpusType;
  readonly encf: string;
  readonly lines: number;
  readonly xml: Buffer;
  readonly rfce: Buffer | null;
}

/** Mostly consumo (32) and crédito fiscal (31), a few notes, as a supermarket or pharmacy issues. */
const MIX: readonly (readonly [CorpusType, number])[] = [[32, 0.55], [31, 0.37], [34, 0.05], [33, 0.03]];
const FORMAT = 1;
const root = fileURLToPath(new URL('../..', import.meta.url));

/** `size` distinct documents (default 10,000), from the cache when a pool of that size and seed is there. */
export function documentPool(size = 10_000, seed = 20261127): PoolDocument[] {
  const dir = join(root, '.cache', 'bench-pool');
  const file = join(dir, `pool-v${FORMAT}-${seed}-${size}.bin`);
  if (existsSync(file)) return decode(readFileSync(file));
  const rnd = generator(seed);
  const from = corpusIssuer(rnd, 0);
  const sequences = new Map<CorpusType, number>();
  const docs: PoolDocument[] = [];
  const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + (i % 300) * 86_400_000).toISOString().slice(0, 10);
  while (docs.length < size) {
    let r = rnd();
    const type = MIX.find(([, w]) => (r -= w) < 0)?.[0] ?? 31;
    const sequence = (sequences.get(type) ?? 0) + 1;
    sequences.set(type, sequence);
    const d = corpusDocument(rnd, from, type, sequence, day(docs.length));
    docs.push({ type, encf: d.encf, lines: d.lines, xml: d.signed.xmlBytes, rfce: d.signed.rfceXml === null ? null : Buffer.from(d.signed.rfceXml, 'utf8') });
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.tmp`, encode(docs));
  renameSync(`${file}.tmp`, file);
  return docs;
}

/** [u32 json length][json: type, encf, lines, xml length, rfce length per document][bytes...] */
function encode(docs: readonly PoolDocument[]): Buffer {
  const index = Buffer.from(JSON.stringify(docs.map((d) => [d.type, d.encf, d.lines, d.xml.length, d.rfce?.length ?? -1])));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(index.length);
  return Buffer.concat([head, index, ...docs.flatMap((d) => (d.rfce ? [d.xml, d.rfce] : [d.xml]))]);
}

function decode(file: Buffer): PoolDocument[] {
  const length = file.readUInt32LE(0);
  const index = JSON.parse(file.subarray(4, 4 + length).toString()) as [CorpusType, string, number, number, number][];
  let at = 4 + length;
  const take = (n: number) => file.subarray(at, (at += n));
  return index.map(([type, encf, lines, xml, rfce]) => ({ type, encf, lines, xml: take(xml), rfce: rfce < 0 ? null : take(rfce) }));
}
