import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal payloads hash equal whatever their key order.
 * Built by appending (not with entries, map and join): it runs for every request, on every payload.
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + stableStringify(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  // sort() without a comparator orders by UTF-16 code units, as `<` does.
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${stableStringify(v)}`;
  }
  return `${out}}`;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
