// A pool of distinct signed documents for the big-store benches, built once and kept in
// .cache/bench-pool/ (generating 10,000 takes about half a minute): types 31, 32 (with its RFCE
// under DOP 250,000), 33 and 34 in the mix a shop issues, from 1 to 40 lines, all by one issuer
// with one certificate, as one taxpayer's store holds. The file's format and a reader that leaves
// the documents on disk: pool-file.ts.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { corpusDocument, corpusIssuer, generator, type CorpusType } from './realistic.js';
import { decodePool, encodePool, poolFile, POOL_SEED, type PoolDocument } from './pool-file.js';

export type { PoolDocument } from './pool-file.js';

/** Mostly consumo (32) and crédito fiscal (31), a few notes, as a supermarket or pharmacy issues. */
const MIX: readonly (readonly [CorpusType, number])[] = [[32, 0.55], [31, 0.37], [34, 0.05], [33, 0.03]];

/** `size` distinct documents (default 10,000), from the cache when a pool of that size and seed is there. */
export function documentPool(size = 10_000, seed = POOL_SEED): PoolDocument[] {
  const file = poolFile(size, seed);
  if (existsSync(file)) return decodePool(readFileSync(file));
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
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, encodePool(docs));
  renameSync(`${file}.tmp`, file);
  return docs;
}
