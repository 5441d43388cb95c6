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

/** An array or object being written: its items, or its sorted keys, and how far it has got. */
interface Open {
  readonly container: unknown[] | Record<string, unknown>;
  /** null for an array. */
  readonly keys: string[] | null;
  next: number;
  wrote: boolean;
}

/** Writes the start of an array or object and pushes it to be written. */
function open(value: object, stack: Open[]): string {
  if (Array.isArray(value)) {
    stack.push({ container: value, keys: null, next: 0, wrote: false });
    return '[';
  }
  const keys = Object.keys(value);
  sortKeys(keys);
  stack.push({ container: value as Record<string, unknown>, keys, next: 0, wrote: false });
  return '{';
}

/**
 * JSON with object keys sorted at every level, so equal payloads hash equal whatever their key order.
 * Built by appending (not with entries, map and join): it runs for every request, on every payload.
 * Walked with a stack of its own, not by recursion, so no nesting depth can overflow the call stack
 * (it runs on the raw payload, before validation).
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const stack: Open[] = [];
  let out = open(value, stack);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    let child: unknown;
    if (top.keys === null) {
      const array = top.container as unknown[];
      if (top.next >= array.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (top.next > 0) out += ',';
      child = array[top.next++];
    } else {
      const record = top.container as Record<string, unknown>;
      const keys = top.keys;
      child = undefined;
      while (top.next < keys.length && (child = record[keys[top.next]!]) === undefined) top.next++;
      if (top.next >= keys.length) {
        out += '}';
        stack.pop();
        continue;
      }
      if (top.wrote) out += ',';
      top.wrote = true;
      out += quoted(keys[top.next++]!);
      out += ':';
    }
    if (child === null || typeof child !== 'object') out += JSON.stringify(child) ?? 'null';
    else out += open(child, stack);
  }
  return out;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
