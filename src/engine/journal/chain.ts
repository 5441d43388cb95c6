import { createHash, hash as oneShotHash } from 'node:crypto';

/**
 * The chain: each entry's hash covers its content and the hash before it,
 *
 *   h(n) = SHA-256( h(n-1) || UTF-8(canonical(entry n)) ),  h(0) = 32 zero bytes,
 *
 * where canonical is the JSON array
 *   [1, tenantKey, seq, at, kind, ecfKey, ref, digestHex, data]
 * (absent fields null, `at` in milliseconds since the epoch). An entry row
 * keeps only the first LINK_BYTES of its hash: enough to name the entry where
 * a recomputed chain first differs from the stored one (a changed entry whose
 * 8 bytes still match is a 2^-64 chance). What a closing signs, and what the
 * head row holds, is the full hash, which only the whole chain gives back.
 * Migration 0026 holds a copy of this formula; test/engine/journal checks
 * that the two agree.
 */
export const CHAIN_VERSION = 1;
export const LINK_BYTES = 8;
export const GENESIS: Buffer = Buffer.alloc(32);

export interface ChainEntry {
  readonly tenantKey: number;
  readonly seq: number;
  /** Milliseconds since the epoch, from the injected clock. */
  readonly at: number;
  readonly kind: number;
  readonly ecfKey: number | null;
  readonly ref: string | null;
  readonly digest: Buffer | null;
  readonly data: string | null;
}

export function canonicalEntry(e: ChainEntry): string {
  return JSON.stringify([CHAIN_VERSION, e.tenantKey, e.seq, e.at, e.kind, e.ecfKey, e.ref, e.digest ? e.digest.toString('hex') : null, e.data]);
}

// One-shot hashing of the two parts written into a buffer reused for every entry: the chain's cost
// is most of an audit's, and this is about 1.7 times as fast as a Hash object per entry (the
// canonical text is ASCII JSON but may hold any character of a ref or data: 3 bytes per UTF-16 unit
// bound its UTF-8).
let scratch = Buffer.alloc(4096);

export function nextHash(previous: Buffer, e: ChainEntry): Buffer {
  const text = canonicalEntry(e);
  if (32 + text.length * 3 > scratch.length) scratch = Buffer.alloc(32 + text.length * 3);
  previous.copy(scratch, 0, 0, 32);
  const n = scratch.write(text, 32, 'utf8');
  return oneShotHash('sha256', scratch.subarray(0, 32 + n), 'buffer');
}

export const linkOf = (hash: Buffer): Buffer => hash.subarray(0, LINK_BYTES);

/**
 * The digest an `ecf.issued` entry records: the SHA-256 of the signed e-CF;
 * for a consumo under 250,000, which also has its signed RFCE, the SHA-256
 * of the two digests one after the other (e-CF first).
 */
export function documentDigest(xmlSha256: Buffer, rfceSha256: Buffer | null): Buffer {
  return rfceSha256 ? createHash('sha256').update(xmlSha256).update(rfceSha256).digest() : xmlSha256;
}
