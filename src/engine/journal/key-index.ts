import { randomFillSync } from 'node:crypto';
import { hexByte } from './hex-text.js';

/**
 * The journal's e-CF entries, each a (key, seq) pair and, where the entry
 * records a 32-byte digest, its 64-bit fingerprint (below). The pairs are
 * packed as (key, position of the add) in one 64-bit integer (key in the high
 * half) and sorted; seqs and fingerprints stay in the order added, found
 * through that position. After the sort: 21 bytes an entry (key, position,
 * seq, fingerprint, state), so 10 million e-CF cost about 210 MB however the
 * journal is ordered; each stored e-CF finds its entries by binary search,
 * and its digest is compared without reading the journal a second time.
 */
export class KeyIndex {
  #packed = new BigUint64Array(1024);
  #seqs = new Uint32Array(1024);
  // Two 32-bit halves of the digest's fingerprint per entry, and 1 where the entry has one.
  readonly #fingerprint = new Fingerprint();
  #tags = new Uint32Array(2048);
  #tagged = new Uint8Array(1024);
  #size = 0;
  // After seal: the sorted keys and, per sorted position, where the entry was added; searched without BigInt.
  #keys = new Uint32Array(0);
  #order = new Uint32Array(0);
  #matched: Uint8Array | null = null;

  /** `digest`: the entry's digest as hex text (row-reader.ts), in either case, or null. */
  add(key: number, seq: number, digest: string | null = null): void {
    if (key < 0 || key > 0xffffffff || seq > 0xffffffff) throw new Error(`key ${key} or seq ${seq} beyond 32 bits`);
    const at = this.#size;
    if (at === this.#seqs.length) this.#grow();
    this.#packed[at] = (BigInt(key) << 32n) | BigInt(at);
    this.#seqs[at] = seq;
    if (digest !== null && this.#fingerprint.of(digest)) {
      this.#tags[2 * at] = this.#fingerprint.high;
      this.#tags[2 * at + 1] = this.#fingerprint.low;
      this.#tagged[at] = 1;
    }
    this.#size++;
  }

  #grow(): void {
    const grown = <T extends BigUint64Array | Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(a.length * 2);
      b.set(a as never);
      return b;
    };
    this.#packed = grown(this.#packed, (n) => new BigUint64Array(n));
    this.#seqs = grown(this.#seqs, (n) => new Uint32Array(n));
    this.#tags = grown(this.#tags, (n) => new Uint32Array(n));
    this.#tagged = grown(this.#tagged, (n) => new Uint8Array(n));
  }

  get size(): number {
    return this.#size;
  }

  /** Sorts; call once, after the last add. */
  seal(): void {
    const sorted = this.#packed.subarray(0, this.#size).sort();
    this.#keys = new Uint32Array(this.#size);
    this.#order = new Uint32Array(this.#size);
    for (let i = 0; i < this.#size; i++) {
      this.#keys[i] = Number(sorted[i]! >> 32n);
      this.#order[i] = Number(sorted[i]! & 0xffffffffn);
    }
    this.#packed = new BigUint64Array(0);
    // The room grown for adds, given back.
    this.#seqs = this.#seqs.slice(0, this.#size);
    this.#tags = this.#tags.slice(0, 2 * this.#size);
    this.#tagged = this.#tagged.slice(0, this.#size);
    this.#matched = new Uint8Array(this.#size);
  }

  /** The seqs of the entries with this key, as positions for `match` and `sameDigest`. */
  find(key: number): { position: number; seq: number }[] {
    const keys = this.#keys;
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    const found = [];
    for (let i = lo; i < this.#size && keys[i] === key; i++) found.push({ position: i, seq: this.#seqs[this.#order[i]!]! });
    return found;
  }

  /**
   * Whether the entry at this position recorded `digest` (hex, either case):
   * true means the same fingerprint, which two different digests share with a
   * chance of 2^-64; false, read the entry to say what differs.
   */
  sameDigest(position: number, digest: string): boolean {
    const at = this.#order[position]!;
    return this.#tagged[at] === 1 && this.#fingerprint.of(digest) && this.#tags[2 * at] === this.#fingerprint.high && this.#tags[2 * at + 1] === this.#fingerprint.low;
  }

  match(position: number): void {
    this.#matched![position] = 1;
  }

  /** The first entry no stored row matched, or null. */
  firstUnmatched(): { key: number; seq: number } | null {
    let first: { key: number; seq: number } | null = null;
    for (let i = 0; i < this.#size; i++) {
      if (this.#matched![i]) continue;
      const seq = this.#seqs[this.#order[i]!]!;
      if (!first || seq < first.seq) first = { key: this.#keys[i]!, seq };
    }
    return first;
  }
}

/**
 * A 32-byte digest mapped to 64 bits by a linear map over GF(2) drawn at
 * random for each index: the XOR of one random 64-bit value per set bit of
 * the digest (a table per byte position makes it 32 lookups). For any two
 * different digests the map of their XOR is a uniformly random 64-bit value,
 * so they share a fingerprint with a chance of 2^-64, however they were
 * chosen: a digest edited in the store before the check cannot be aimed at a
 * map that does not exist yet. (The first 8 bytes of the digest instead
 * would let an edit that keeps them pass.)
 */
export class Fingerprint {
  // Per byte position and byte value, the map's two 32-bit halves.
  readonly #table = new Uint32Array(32 * 256 * 2);
  /** The halves of the last `of` that returned true. */
  high = 0;
  low = 0;

  constructor() {
    const basis = randomFillSync(new Uint32Array(32 * 8 * 2));
    const t = this.#table;
    for (let i = 0; i < 32; i++) {
      for (let v = 1; v < 256; v++) {
        // v's lowest set bit, added to the value of v without it.
        const bit = 31 - Math.clz32(v & -v);
        const rest = (i * 256 + (v & (v - 1))) * 2;
        const at = (i * 256 + v) * 2;
        t[at] = t[rest]! ^ basis[(i * 8 + bit) * 2]!;
        t[at + 1] = t[rest + 1]! ^ basis[(i * 8 + bit) * 2 + 1]!;
      }
    }
  }

  /** Sets high and low to the fingerprint of `hex` (64 hex digits, either case); false for anything else. */
  of(hex: string): boolean {
    if (hex.length !== 64) return false;
    const t = this.#table;
    let high = 0;
    let low = 0;
    for (let i = 0; i < 32; i++) {
      const byte = hexByte(hex, 2 * i);
      if (byte < 0) return false;
      const at = (i * 256 + byte) * 2;
      high ^= t[at]!;
      low ^= t[at + 1]!;
    }
    this.high = high >>> 0;
    this.low = low >>> 0;
    return true;
  }
}

/** A 32-bit FNV-1a of a text id: the key of a received e-CF in a KeyIndex (a shared key only costs a second look). */
export function textKey(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
