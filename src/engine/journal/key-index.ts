import { hexWord } from './hex-text.js';

/**
 * The journal's e-CF entries, each a (key, seq) pair and, where the entry
 * records one, the first 8 bytes of its digest. The pairs are packed as
 * (key, position of the add) in one 64-bit integer (key in the high half) and
 * sorted; seqs and digests stay in the order added, found through that
 * position. After the sort: 21 bytes an entry (key, position, seq, digest,
 * state), so 10 million e-CF cost about 210 MB however the journal is
 * ordered; each stored e-CF finds its entries by binary search, and its
 * digest is compared without reading the entry again. Eight bytes name a
 * changed document as the chain's links name a changed entry (a change that
 * keeps them is a 2^-64 chance); the full digest is read back to say what differs.
 */
export class KeyIndex {
  #packed = new BigUint64Array(1024);
  #seqs = new Uint32Array(1024);
  // Two 32-bit halves of the digest's first 8 bytes per entry, and 1 where the entry has a digest.
  #tags = new Uint32Array(2048);
  #tagged = new Uint8Array(1024);
  #size = 0;
  // After seal: the sorted keys and, per sorted position, where the entry was added; searched without BigInt.
  #keys = new Uint32Array(0);
  #order = new Uint32Array(0);
  #matched: Uint8Array | null = null;

  /** `digest`: the entry's digest as hex text (row-reader.ts), or null. */
  add(key: number, seq: number, digest: string | null = null): void {
    if (key < 0 || key > 0xffffffff || seq > 0xffffffff) throw new Error(`key ${key} or seq ${seq} beyond 32 bits`);
    const at = this.#size;
    if (at === this.#seqs.length) this.#grow();
    this.#packed[at] = (BigInt(key) << 32n) | BigInt(at);
    this.#seqs[at] = seq;
    const high = digest === null || digest.length < 16 ? -1 : hexWord(digest, 0);
    const low = high < 0 ? -1 : hexWord(digest!, 8);
    if (low >= 0) {
      this.#tags[2 * at] = high;
      this.#tags[2 * at + 1] = low;
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

  /** Whether the entry at this position recorded a digest beginning as `digest` (hex) does: its first 8 bytes. */
  sameDigest(position: number, digest: string): boolean {
    const at = this.#order[position]!;
    return this.#tagged[at] === 1 && digest.length >= 16 && this.#tags[2 * at] === hexWord(digest, 0) && this.#tags[2 * at + 1] === hexWord(digest, 8);
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

/** A 32-bit FNV-1a of a text id: the key of a received e-CF in a KeyIndex (a shared key only costs a second look). */
export function textKey(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
