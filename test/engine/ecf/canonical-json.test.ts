import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stableStringify } from '../../../src/engine/ecf/canonical-json.js';

// The plain definition: stored request hashes were made with it, so the fast one must match it character for character.
function plain(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(plain).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${plain(v)}`).join(',')}}`;
}

const KEYS = ['name', 'Name', 'quantity', 'unitPrice', '__proto__', '10', '2', '0', '', 'ñandú', 'é', 'e\u0301', '"q"', 'a\\b', 'line\n', '\u{1F600}', '\uFFFF', 'z', 'a'];

/** Nested values from a fixed seed: objects of 0 to 40 keys (past the in-place sort's limit), arrays, every JSON primitive. */
function generate(seed: number): unknown[] {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 3 || r < 0.3) return pick([null, true, false, 0, -0, 1.5, 1e21, -3, 'texto', 'ñ "comillas"', '', undefined]);
    if (r < 0.5) return Array.from({ length: Math.floor(next() * 5) }, () => value(depth + 1));
    // JSON.parse, as a request body arrives: "__proto__" an own key, integer-like keys first.
    const big = next() < 0.1;
    const keys = Array.from({ length: big ? 33 + Math.floor(next() * 8) : Math.floor(next() * 8) }, (_, i) => (!big && next() < 0.8 ? pick(KEYS) : `k${Math.floor(next() * 100)}_${i}`));
    const text = `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(value(depth + 1)) ?? 'null'}`).join(',')}}`;
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (next() < 0.2) parsed['gone'] = undefined;
    return parsed;
  };
  return Array.from({ length: 3000 }, () => value(0));
}

describe('stableStringify', () => {
  it('matches the plain definition on generated values, key order aside', () => {
    for (const v of generate(4242)) expect(stableStringify(v)).toBe(plain(v));
  });

  it('writes equal payloads equally whatever their key order', () => {
    const a = { b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'ñ' } };
    const b = { a: { c: 'ñ', d: [1, { x: 1, y: 2 }] }, b: 1 };
    expect(stableStringify(a)).toBe(stableStringify(b));
    expect(stableStringify(a)).toBe('{"a":{"c":"ñ","d":[1,{"x":1,"y":2}]},"b":1}');
  });

  it('matches the plain definition on arbitrary JSON values (fast-check, fixed seed)', () => {
    const parsed = fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
    fc.assert(fc.property(parsed, (v) => stableStringify(v) === plain(v)), { seed: 2211, numRuns: 2000 });
  });

  // It runs on the raw payload before validation: a deep body must not overflow the call stack.
  it('writes values nested far deeper than the call stack allows recursion', () => {
    const depth = 200_000;
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { b: value, a: undefined };
    const expected = (() => {
      let out = '1';
      for (let i = 0; i < depth; i++) out = i % 2 === 0 ? `[${out}]` : `{"b":${out}}`;
      return out;
    })();
    expect(stableStringify(value)).toBe(expected);
  });
});
