// Hex text read back as bytes without making a Buffer: a verify reads its digests and links as hex
// (a string costs the driver less than a Buffer per row; see row-reader.ts), in either case.

/** The value of the hex digit at `i`, or -1. */
function nibble(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
}

/** The byte written at `i` (two digits), or -1 when they are not hex. */
export function hexByte(text: string, i: number): number {
  const high = nibble(text, i);
  const low = nibble(text, i + 1);
  return high < 0 || low < 0 ? -1 : (high << 4) | low;
}

/** Whether `text` (hex) spells the first `length` bytes of `bytes`. */
export function hexStartsEqual(text: string | null, bytes: Uint8Array, length: number): boolean {
  if (text === null || text.length !== 2 * length) return false;
  for (let i = 0; i < length; i++) if (hexByte(text, 2 * i) !== bytes[i]) return false;
  return true;
}
