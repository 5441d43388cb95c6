import * as crypto from 'node:crypto';

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

// The chain's cost is most of an audit's. The canonical text is written straight into one buffer
// reused for every entry, after the previous hash, and hashed in one call: no Hash object, no
// intermediate array or string for the whole entry (the integers and the digest's hex are ASCII;
// ref and data go through JSON.stringify as canonicalEntry has them, then UTF-8: 3 bytes per UTF-16
// unit bound them). test/engine/journal/chain.test.ts holds it to canonicalEntry byte for byte.
let scratch = Buffer.alloc(4096);
const HEX = Buffer.from('0123456789abcdef', 'latin1');
// crypto.hash (Node 21.7, 20.12) is a third faster than a Hash object for an entry's ~150 bytes.
const sha256: (data: Buffer) => Buffer =
  typeof crypto.hash === 'function' ? (data) => crypto.hash('sha256', data, 'buffer') : (data) => crypto.createHash('sha256').update(data).digest();

export function nextHash(previous: Buffer, e: ChainEntry): Buffer {
  return chainHash(previous, e.tenantKey, e.seq, e.at, e.kind, e.ecfKey, e.ref, e.digest, e.data);
}

/**
 * nextHash of an entry given field by field, as a verify reads them from a
 * row; the digest may come as the hex text a store's hex() gives of its
 * bytes, in either case (what the canonical form holds is lower case).
 */
export function chainHash(previous: Buffer, tenantKey: number, seq: number, at: number, kind: number, ecfKey: number | null, ref: string | null, digest: Buffer | string | null, data: string | null): Buffer {
  // JSON.stringify writes a safe integer as this template does; anything else goes its way.
  const head = Number.isSafeInteger(tenantKey) && Number.isSafeInteger(seq) && Number.isSafeInteger(at) && Number.isSafeInteger(kind) && (ecfKey === null || Number.isSafeInteger(ecfKey));
  if (!head) {
    const bytes = typeof digest === 'string' ? Buffer.from(digest, 'hex') : digest;
    return sha256(Buffer.concat([previous.subarray(0, 32), Buffer.from(canonicalEntry({ tenantKey, seq, at, kind, ecfKey, ref, digest: bytes, data }), 'utf8')]));
  }
  const fields = `[${CHAIN_VERSION},${tenantKey},${seq},${at},${kind},${ecfKey === null ? 'null' : ecfKey},`;
  const refText = ref === null ? 'null' : JSON.stringify(ref);
  const dataText = data === null ? 'null' : JSON.stringify(data);
  const bound = 32 + fields.length + refText.length * 3 + 1 + (typeof digest === 'string' ? digest.length + 2 : digest ? digest.length * 2 + 2 : 4) + 1 + dataText.length * 3 + 1;
  if (bound > scratch.length) scratch = Buffer.alloc(bound * 2);
  const out = scratch;
  previous.copy(out, 0, 0, 32);
  let n = 32 + out.write(fields, 32, 'latin1');
  n += ref === null ? out.write('null', n, 'latin1') : out.write(refText, n, 'utf8');
  out[n++] = 0x2c; // ,
  if (typeof digest === 'string') {
    out[n++] = 0x22; // "
    for (let i = 0; i < digest.length; i++) out[n++] = digest.charCodeAt(i) | (digest.charCodeAt(i) > 0x39 ? 0x20 : 0);
    out[n++] = 0x22;
  } else if (digest) {
    out[n++] = 0x22;
    for (let i = 0; i < digest.length; i++) {
      out[n++] = HEX[digest[i]! >> 4]!;
      out[n++] = HEX[digest[i]! & 15]!;
    }
    out[n++] = 0x22;
  } else {
    n += out.write('null', n, 'latin1');
  }
  out[n++] = 0x2c;
  n += data === null ? out.write('null', n, 'latin1') : out.write(dataText, n, 'utf8');
  out[n++] = 0x5d; // ]
  return sha256(out.subarray(0, n));
}

export const linkOf = (hash: Buffer): Buffer => hash.subarray(0, LINK_BYTES);

/**
 * The digest an `ecf.issued` entry records: the SHA-256 of the signed e-CF;
 * for a consumo under 250,000, which also has its signed RFCE, the SHA-256
 * of the two digests one after the other (e-CF first).
 */
export function documentDigest(xmlSha256: Buffer, rfceSha256: Buffer | null): Buffer {
  return rfceSha256 ? crypto.createHash('sha256').update(xmlSha256).update(rfceSha256).digest() : xmlSha256;
}
