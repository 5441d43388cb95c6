/**
 * The manifest's list of files, held compactly for `ecf export verify`: the
 * names' UTF-8 bytes one after another in one buffer, sizes in one typed
 * array, digests as 32 bytes each in another buffer, and an open-addressing
 * hash table of indexes. A JS object, a Map entry and two strings per file
 * were several hundred bytes each (and the digests' strings, slices of the
 * text they were matched in, kept that text alive): about 80 bytes a file
 * now, so a million files fit in well under 100 MB.
 */

export interface ListedFile {
  readonly size: number;
  /** The SHA-256 as hex. */
  readonly sha256: string;
}

const EMPTY = -1;

export class ManifestIndex {
  #count = 0;
  #names: Buffer;
  #used = 0;
  #starts: Float64Array;
  #sizes: Float64Array;
  #digests: Buffer;
  #taken: Uint8Array;
  #table: Int32Array;

  /** `expected`: how many files the list will likely hold (the ZIP's count): sized once, not grown by doubling. */
  constructor(expected = 1024) {
    const capacity = Math.max(1024, expected);
    this.#names = Buffer.allocUnsafe(capacity * 48);
    this.#starts = new Float64Array(capacity + 1);
    this.#sizes = new Float64Array(capacity);
    this.#digests = Buffer.allocUnsafe(capacity * 32);
    this.#taken = new Uint8Array(capacity);
    this.#table = new Int32Array(2 ** Math.ceil(Math.log2(capacity * 2))).fill(EMPTY);
  }

  get count(): number {
    return this.#count;
  }

  #hash(start: number, end: number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ this.#names[i]!, 0x01000193);
    return h >>> 0;
  }

  /** The slot of `name` (written at [start, end) of the names buffer) in the table: its index there, or an empty slot. */
  #slot(start: number, end: number, table = this.#table): number {
    const mask = table.length - 1;
    for (let s = this.#hash(start, end) & mask; ; s = (s + 1) & mask) {
      const i = table[s]!;
      if (i === EMPTY) return s;
      const a = this.#starts[i]!;
      const b = this.#starts[i + 1]!;
      if (b - a === end - start && this.#names.compare(this.#names, start, end, a, b) === 0) return s;
    }
  }

  /** Writes `name` after the last listed one (not yet listed): its [start, end). */
  #stage(name: string): [number, number] {
    const bytes = Buffer.byteLength(name, 'utf8');
    if (this.#used + bytes > this.#names.length) {
      const grown = Buffer.allocUnsafe(Math.max(Math.ceil(this.#names.length * 1.5), this.#used + bytes));
      this.#names.copy(grown, 0, 0, this.#used);
      this.#names = grown;
    }
    this.#names.write(name, this.#used, 'utf8');
    return [this.#used, this.#used + bytes];
  }

  #grow(): void {
    const capacity = this.#sizes.length * 2;
    const starts = new Float64Array(capacity + 1);
    starts.set(this.#starts);
    this.#starts = starts;
    const sizes = new Float64Array(capacity);
    sizes.set(this.#sizes);
    this.#sizes = sizes;
    const digests = Buffer.allocUnsafe(capacity * 32);
    this.#digests.copy(digests);
    this.#digests = digests;
    const taken = new Uint8Array(capacity);
    taken.set(this.#taken);
    this.#taken = taken;
    const table = new Int32Array(capacity * 2).fill(EMPTY);
    for (let i = 0; i < this.#count; i++) table[this.#slot(this.#starts[i]!, this.#starts[i + 1]!, table)] = i;
    this.#table = table;
  }

  /** Lists a file; false when the name is listed already (the first one stands). */
  add(name: string, size: number, sha256: string): boolean {
    if (this.#count === this.#sizes.length) this.#grow();
    const [start, end] = this.#stage(name);
    const slot = this.#slot(start, end);
    if (this.#table[slot] !== EMPTY) return false;
    const i = this.#count++;
    this.#table[slot] = i;
    this.#starts[i] = start;
    this.#starts[i + 1] = end;
    this.#used = end;
    this.#sizes[i] = size;
    this.#digests.write(sha256, i * 32, 32, 'hex');
    return true;
  }

  /** The listed file of that name, marked as found; null when not listed or found already. */
  take(name: string): ListedFile | null {
    const [start, end] = this.#stage(name);
    const i = this.#table[this.#slot(start, end)]!;
    if (i === EMPTY || this.#taken[i]) return null;
    this.#taken[i] = 1;
    return { size: this.#sizes[i]!, sha256: this.#digests.toString('hex', i * 32, i * 32 + 32) };
  }

  /** Whether a name was listed and taken (found in the ZIP) already. */
  taken(name: string): boolean {
    const [start, end] = this.#stage(name);
    const i = this.#table[this.#slot(start, end)]!;
    return i !== EMPTY && this.#taken[i] === 1;
  }

  /** The names listed but never taken, in the manifest's order. */
  *untaken(): Generator<string> {
    for (let i = 0; i < this.#count; i++) if (!this.#taken[i]) yield this.#names.toString('utf8', this.#starts[i]!, this.#starts[i + 1]!);
  }
}
