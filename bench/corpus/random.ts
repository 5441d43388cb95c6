// The corpus's pseudo-random numbers, apart from the signing code realistic.ts loads: the big-store
// bench's loader draws its rows from it without loading the XML, XSD and signing modules.

/** xorshift32: small, fast, and the same sequence on every machine. */
export function generator(seed: number): () => number {
  let s = seed >>> 0 || 0x2545f491;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}
