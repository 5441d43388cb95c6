/**
 * The journal's e-CF entries, as (key, seq) pairs packed in one 64-bit
 * integer each (key in the high half), sorted, then split into two arrays
 * of 32-bit numbers: 8 bytes an entry plus one for "matched" (16 while
 * sorting), so 10 million e-CF cost about 90 MB (170 at the sort) however
 * the journal is ordered, and each stored e-CF finds its entries by binary search.
 */
export class KeyIndex {
  #values = new BigUint64Array(1024);
  #size = 0;
  // After seal: the pairs split into two sorted arrays of numbers, searched without BigInt.
  #keys = new Uint32Array(0);
  #seqs = new Uint32Array(0);
  #matched: Uint8Array | null = null;

  add(key: number, seq: number): void {
    if (key < 0 || key > 0xffffffff || seq > 0xffffffff) throw new Error(`key ${key} or seq ${seq} beyond 32 bits`);
    if (this.#size === this.#values.length) {
      const grown = new BigUint64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#size++] = (BigInt(key) << 32n) | BigInt(seq);
  }

  get size(): number {
    return this.#size;
  }

  /** Sorts; call once, after the last add. */
  seal(): void {
    const sorted = this.#values.subarray(0, this.#size).sort();
    this.#keys = new Uint32Array(this.#size);
    this.#seqs = new Uint32Array(this.#size);
    for (let i = 0; i < this.#size; i++) {
      this.#keys[i] = Number(sorted[i]! >> 32n);
      this.#seqs[i] = Number(sorted[i]! & 0xffffffffn);
    }
    this.#values = new BigUint64Array(0);
    this.#matched = new Uint8Array(this.#size);
  }

  /** The seqs of the entries with this key, as positions for `match`. */
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
    for (let i = lo; i < this.#size && keys[i] === key; i++) found.push({ position: i, seq: this.#seqs[i]! });
    return found;
  }

  match(position: number): void {
    this.#matched![position] = 1;
  }

  /** The first entry no stored row matched, or null. */
  firstUnmatched(): { key: number; seq: number } | null {
    let first: { key: number; seq: number } | null = null;
    for (let i = 0; i < this.#size; i++) {
      if (this.#matched![i]) continue;
      const seq = this.#seqs[i]!;
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
