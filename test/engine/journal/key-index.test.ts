import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Fingerprint, KeyIndex } from '../../../src/engine/journal/key-index.js';

describe('the packed index of the journal e-CF entries', () => {
  it('finds each key’s entries, added in any order, with the digest each recorded, and names the first entry left unmatched', () => {
    const index = new KeyIndex();
    const digests = Array.from({ length: 3000 }, () => randomBytes(32).toString('hex'));
    // Keys added backwards, past the first growth; key 7 twice; key 5 without a digest.
    for (let i = digests.length - 1; i >= 0; i--) index.add(i + 10, 2 * i + 1, digests[i]!);
    index.add(7, 9001, digests[0]!);
    index.add(7, 9002, digests[1]!.toUpperCase());
    index.add(5, 9003, null);
    index.seal();
    expect(index.size).toBe(3003);
    for (let i = 0; i < digests.length; i++) {
      const found = index.find(i + 10);
      expect(found.map((f) => f.seq)).toEqual([2 * i + 1]);
      expect(index.sameDigest(found[0]!.position, digests[i]!)).toBe(true);
      expect(index.sameDigest(found[0]!.position, digests[(i + 1) % digests.length]!)).toBe(false);
      index.match(found[0]!.position);
    }
    const twice = index.find(7);
    expect(twice.map((f) => f.seq).sort()).toEqual([9001, 9002]);
    expect(twice.map((f) => index.sameDigest(f.position, f.seq === 9001 ? digests[0]! : digests[1]!))).toEqual([true, true]);
    const bare = index.find(5);
    expect(index.sameDigest(bare[0]!.position, digests[0]!)).toBe(false);
    expect(index.find(6)).toEqual([]);
    expect(index.firstUnmatched()).toEqual({ key: 7, seq: 9001 });
    index.match(twice.find((f) => f.seq === 9001)!.position);
    expect(index.firstUnmatched()).toEqual({ key: 7, seq: 9002 });
  });

  it('tells apart digests that differ in any one bit, the first 8 bytes kept included; hex of either case is one digest; anything but 32 bytes has none', () => {
    const fingerprint = new Fingerprint();
    const digest = randomBytes(32);
    expect(fingerprint.of(digest.toString('hex'))).toBe(true);
    const mine = [fingerprint.high, fingerprint.low];
    expect(fingerprint.of(digest.toString('hex').toUpperCase())).toBe(true);
    expect([fingerprint.high, fingerprint.low]).toEqual(mine);
    for (let bit = 0; bit < 256; bit++) {
      const other = Buffer.from(digest);
      other[bit >> 3] = other[bit >> 3]! ^ (1 << (bit & 7));
      expect(fingerprint.of(other.toString('hex'))).toBe(true);
      expect([fingerprint.high, fingerprint.low]).not.toEqual(mine);
    }
    expect(fingerprint.of(randomBytes(31).toString('hex'))).toBe(false);
    expect(fingerprint.of('zz'.repeat(32))).toBe(false);
    // Drawn anew for each index: another map gives another fingerprint of the same digest.
    const another = new Fingerprint();
    another.of(digest.toString('hex'));
    expect([another.high, another.low]).not.toEqual(mine);
  });
});
