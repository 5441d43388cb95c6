import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeptDeflater, KeptInflater } from '../../../src/engine/export/kept-zlib.js';
import { ManifestIndex } from '../../../src/engine/export/manifest-index.js';

describe('the kept deflate and inflate contexts', () => {
  // Not always deflateRawSync's bytes (a reset context may choose other matches, about once in 200,000
  // entries): a valid raw deflate of the same data, which is what the ZIP needs.
  it('deflate entry after entry what the public inflate gives back, and inflate it back; too big or damaged goes the public way', () => {
    const deflater = new KeptDeflater(6);
    const inflater = new KeptInflater();
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.uint8Array({ maxLength: 40_000 }), fc.string({ maxLength: 20_000 }).map((s) => new TextEncoder().encode(s.repeat(3)))), { minLength: 1, maxLength: 6 }), (inputs) => {
        for (const raw of inputs) {
          const data = Buffer.from(raw);
          const kept = deflater.deflate(data);
          expect(inflateRawSync(kept).equals(data)).toBe(true);
          expect(inflater.inflate(Buffer.from(kept), data.length).equals(data)).toBe(true);
        }
      }),
    );
    const big = randomBytes(1_500_000);
    expect(inflateRawSync(deflater.deflate(big)).equals(big)).toBe(true);
    expect(inflater.inflate(deflateRawSync(big), big.length).equals(big)).toBe(true);
    const damaged = Buffer.from(deflateRawSync(Buffer.from('<ECF>'.repeat(1000))));
    expect(() => inflater.inflate(damaged.subarray(0, damaged.length - 3), 5000)).toThrow();
    // A damaged entry does not spoil the next one.
    expect(inflater.inflate(deflateRawSync(Buffer.from('bien')), 4).toString()).toBe('bien');
    deflater.close();
    inflater.close();
  });
});

describe('the manifest index', () => {
  it('finds each listed name once, names duplicates and the names never found, in order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 3000 }), fc.nat(), (names, seed) => {
        const index = new ManifestIndex(seed % 2 === 0 ? 1 : names.length);
        const digest = (i: number) => (i % 256).toString(16).padStart(2, '0').repeat(32);
        names.forEach((n, i) => expect(index.add(n, i, digest(i))).toBe(true));
        expect(index.add(names[0]!, 1, digest(1))).toBe(false);
        expect(index.count).toBe(names.length);
        const skipped = new Set(names.filter((_, i) => (i + seed) % 7 === 0));
        names.forEach((n, i) => {
          if (skipped.has(n)) return;
          expect(index.taken(n)).toBe(false);
          expect(index.take(n)).toEqual({ size: i, sha256: digest(i) });
          expect(index.taken(n)).toBe(true);
          expect(index.take(n)).toBeNull();
        });
        expect(index.take(`${names[0]}\u0000not listed`)).toBeNull();
        expect([...index.untaken()]).toEqual(names.filter((n) => skipped.has(n)));
      }),
      { numRuns: 30 },
    );
  });
});
