/** Unsigned LEB128: seven bits a byte, low bits first, the high bit set on every byte but the last. */
export function varintBytes(value: number): number[] {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`A varint holds a non-negative integer, not ${value}`);
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

/** The varint at `at`, and where the next field begins; null when the bytes end first or it passes 2^53. */
export function readVarint(bytes: Uint8Array, at: number): { readonly value: number; readonly next: number } | null {
  let value = 0;
  let scale = 1;
  for (let i = at; i < bytes.length && i < at + 8; i++) {
    const b = bytes[i]!;
    value += (b & 0x7f) * scale;
    if ((b & 0x80) === 0) return Number.isSafeInteger(value) ? { value, next: i + 1 } : null;
    scale *= 0x80;
  }
  return null;
}
