import { createHash } from 'node:crypto';

// Object keys written as JSON strings, kept: payloads repeat the same few dozen keys. Bounded,
// since a payload may carry keys of its own choosing.
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS = 1024;

function quoted(key: string): string {
  let text = quotedKeys.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS) quotedKeys.set(key, text);
  }
  return text;
}

/**
 * In UTF-16 code unit order, as sort() without a comparator and `<` order
 * strings. An object's few keys are sorted in place: sort() copies the
 * array into work space of its own on every call, and this runs for every
 * object of every payload.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 32) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
}

/**
 * JSON with object keys sorted at every level, so equal payloads hash equal whatever their key order.
 * Built by appending (not with entries, map and join): it runs for every request, on every payload.
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += stableStringify(value[i]);
    }
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  sortKeys(keys);
  let out = '{';
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    if (out.length > 1) out += ',';
    out += quoted(key);
    out += ':';
    out += stableStringify(v);
  }
  return out + '}';
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
