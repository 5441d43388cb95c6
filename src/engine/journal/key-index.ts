/**
 * The journal's e-CF entries, as (key, seq) pairs packed in one 64-bit
 * integer each (key in the high half), sorted: 8 bytes an entry plus one
 * for "matched", so 10 million e-CF cost about 90 MB however the journal is
 * ordered, and each stored e-CF finds its entries by binary search.
 */
export class KeyIndex {
  #values = new BigUint64Array(1024);
  #size = 0;
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
    this.#values = this.#values.slice(0, this.#size).sort();
    this.#matched = new Uint8Array(this.#size);
  }

  /** The seqs of the entries with this key, as positions for `match`. */
  find(key: number): { position: number; seq: number }[] {
    const low = BigInt(key) << 32n;
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#values[mid]! < low) lo = mid + 1;
      else hi = mid;
    }
    const found = [];
    for (let i = lo; i < this.#size && this.#values[i]! >> 32n === BigInt(key); i++) found.push({ position: i, seq: Number(this.#values[i]! & 0xffffffffn) });
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
      const seq = Number(this.#values[i]! & 0xffffffffn);
      if (!first || seq < first.seq) first = { key: Number(this.#values[i]! >> 32n), seq };
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
