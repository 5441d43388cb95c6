import fc from 'fast-check';
import { RawJson, deepNesting, describePath, editAt, pathsOf, record, serialize, toTree, type Tree } from './json.js';

/** Property names that break code using a plain object as a map keyed by input. */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'isPrototypeOf', '__defineGetter__'] as const;

/** Nesting depths tried: around common recursion limits and far past them. */
export const NESTING_DEPTHS = [64, 257, 1_000, 5_000, 20_000] as const;

/** Sizes of the huge strings and arrays: under, near and over the body limits (1 MiB, 16 MiB for e-CF). */
export const HUGE_LENGTHS = [10_000, 100_000, 1_100_000] as const;

/** Strings a field might choke on. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  'ñÑáéíóú€',
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  '😀'.repeat(40),
  '<script>alert(1)</script>',
  "'; drop table ecf; --",
  '../../../../etc/passwd',
  'file:///etc/passwd',
  '%00%ff',
  '${7*7}{{7*7}}',
  '-1',
  '1e999',
  'NaN',
  'Infinity',
  '0x1F',
  'null',
  'true',
  '2026-02-30T25:61:61Z',
  '00000000-0000-0000-0000-000000000000',
  'x'.repeat(5_000),
  '__proto__',
] as const;

/** Values of every JSON type (and edge numbers), to put where the schema wants something else. */
export const wrongValue: fc.Arbitrary<Tree> = fc.oneof(
  fc.constantFrom<Tree>(null, true, false, 0, -1, 1.5, -0.000001, 1e308, -1e308, 2 ** 53 + 1, [], {}, [null], [[]], { a: 1 }),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(new RawJson('1e999'), new RawJson('-0'), new RawJson('123456789012345678901234567890'), new RawJson('"\\ud800"'), new RawJson('0.1e-400')),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }).map(toTree),
  fc.constantFrom(...PROTOTYPE_NAMES).map((k) => record([[k, 1]])),
);

/** A request body as sent: bytes (or none) and a Content-Type (or none). */
export interface BodyCase {
  readonly label: string;
  readonly payload?: string | Buffer;
  readonly contentType?: string;
}

const JSON_TYPE = 'application/json';

/** Content types a JSON route should refuse or handle, never crash on. */
export const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset="',
  'APPLICATION/JSON',
  'application/problem+json',
  'application/jsonx',
  'application/octet-stream',
  ';;;',
  'a'.repeat(2_000),
] as const;

/** Byte sequences that are not UTF-8: a stray continuation, an overlong slash, a surrogate, a cut sequence, 0xFF. */
export const INVALID_UTF8 = [Buffer.from([0x80]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0xff, 0xfe])] as const;

/**
 * Mutations of a valid body: a wrong type at any path, a prototype name as a
 * key at any level, deep nesting, huge arrays and strings, a field removed,
 * and raw bytes (invalid UTF-8, truncated, empty, BOM, duplicate keys,
 * wrong content types). The valid body itself comes through now and then.
 */
export function bodyCases(valid: unknown): fc.Arbitrary<BodyCase> {
  const base = toTree(valid ?? {});
  const all = pathsOf(base);
  const containers = all.filter((p) => p.kind !== 'scalar');
  const objects = all.filter((p) => p.kind === 'object');
  const text = serialize(base);
  const anyPath = fc.constantFrom(...all);
  const json = (label: string, tree: Tree | undefined): BodyCase => ({ label, payload: tree === undefined ? '' : serialize(tree), contentType: JSON_TYPE });

  const wrongType = fc.tuple(anyPath, wrongValue).map(([p, v]) => json(`wrong type at ${describePath(p.path)}: ${short(serialize(v))}`, editAt(base, p.path, () => v)));
  const inner = all.filter((p) => p.path.length > 0);
  const removed = inner.length
    ? fc.constantFrom(...inner).map((p) => json(`${describePath(p.path)} removed`, editAt(base, p.path, () => undefined)))
    : fc.constant(json('valid body', base));
  const prototypeKey = fc
    .tuple(objects.length ? fc.constantFrom(...objects) : fc.constant({ path: [] as const, kind: 'object' as const }), fc.constantFrom(...PROTOTYPE_NAMES), wrongValue)
    .map(([p, key, v]) => json(`key ${key} at ${describePath(p.path)}`, editAt(base, p.path, (cur) => record([...Object.entries((cur ?? {}) as object), [key, v]]))));
  const prototypeKeyEverywhere = fc
    .constantFrom(...PROTOTYPE_NAMES)
    .map((key) => json(`key ${key} in every object`, objects.reduceRight<Tree | undefined>((t, p) => editAt(t!, p.path, (cur) => record([...Object.entries(cur as object), [key, 'x']])), base)));
  const deep = fc
    .tuple(anyPath, fc.constantFrom(...NESTING_DEPTHS), fc.constantFrom('array' as const, 'object' as const))
    .map(([p, depth, shape]) => json(`${depth} levels of ${shape}s at ${describePath(p.path)}`, editAt(base, p.path, () => deepNesting(depth, shape))));
  const hugeArray = fc
    .tuple(anyPath, fc.constantFrom(...HUGE_LENGTHS), fc.constantFrom<Tree>(0, 'x', null, {}, []))
    .map(([p, n, item]) => json(`array of ${n} ${short(serialize(item))} at ${describePath(p.path)}`, editAt(base, p.path, () => new RawJson(`[${Array(n).fill(serialize(item)).join(',')}]`))));
  const hugeArrayInPlace = (containers.some((c) => c.kind === 'array') ? fc.constantFrom(...containers.filter((c) => c.kind === 'array')) : fc.constant(null))
    .chain((p) => (p ? fc.constantFrom(...HUGE_LENGTHS).map((n) => ({ p, n })) : fc.constant(null)))
    .map((x) => {
      if (!x) return json('valid body', base);
      const arr = editAt(base, x.p.path, (cur) => {
        const items = cur as Tree[];
        const first = items[0] ?? null;
        return new RawJson(`[${Array(Math.min(x.n, 100_000)).fill(serialize(first)).join(',')}]`);
      });
      return json(`${describePath(x.p.path)} with ${Math.min(x.n, 100_000)} copies of its first item`, arr);
    });
  const hugeString = fc
    .tuple(anyPath, fc.constantFrom(...HUGE_LENGTHS), fc.constantFrom('a', 'ñ', '\\u0000', '😀', '\\"'))
    .map(([p, n, ch]) => json(`string of ${n} "${ch}" at ${describePath(p.path)}`, editAt(base, p.path, () => new RawJson(`"${ch.repeat(n)}"`))));

  const raw = fc.oneof(
    fc.constant<BodyCase>({ label: 'empty body, JSON content type', payload: '', contentType: JSON_TYPE }),
    fc.constant<BodyCase>({ label: 'no body, no content type' }),
    fc.constant<BodyCase>({ label: 'whitespace only', payload: ' \r\n\t ', contentType: JSON_TYPE }),
    fc.constant<BodyCase>({ label: 'JSON null', payload: 'null', contentType: JSON_TYPE }),
    fc.constantFrom('[]', '0', '"x"', 'true', '[{}]', '{}').map((p): BodyCase => ({ label: `JSON ${p}`, payload: p, contentType: JSON_TYPE })),
    fc.nat({ max: Math.max(text.length - 1, 0) }).map((cut): BodyCase => ({ label: `truncated at ${cut}`, payload: text.slice(0, cut), contentType: JSON_TYPE })),
    fc.constant<BodyCase>({ label: 'with a BOM', payload: `\ufeff${text}`, contentType: JSON_TYPE }),
    fc.constant<BodyCase>({ label: 'trailing garbage', payload: `${text}}{`, contentType: JSON_TYPE }),
    fc.constantFrom(...WRONG_CONTENT_TYPES).map((ct): BodyCase => ({ label: `content type ${short(ct)}`, payload: text, contentType: ct })),
    fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.nat({ max: text.length })).map(([bytes, at]): BodyCase => {
      const cut = text.indexOf('"', at) + 1 || text.length; // inside a string when there is one
      return { label: `bytes ${bytes.toString('hex')} at ${cut}`, payload: Buffer.concat([Buffer.from(text.slice(0, cut)), bytes, Buffer.from(text.slice(cut))]), contentType: JSON_TYPE };
    }),
    wrongValue.map((v): BodyCase => {
      // The first key again with a wrong value: which of the two wins must not matter.
      const m = /^\{("[^"]+"):/.exec(text);
      return { label: `duplicate key ${m?.[1] ?? '(none)'}`, payload: m ? `{${m[1]}:${serialize(v)},${text.slice(1)}` : text, contentType: JSON_TYPE };
    }),
  );

  return fc.oneof(
    { arbitrary: wrongType, weight: 8 },
    { arbitrary: prototypeKey, weight: 4 },
    { arbitrary: prototypeKeyEverywhere, weight: 1 },
    { arbitrary: removed, weight: 2 },
    { arbitrary: deep, weight: 2 },
    { arbitrary: hugeArray, weight: 1 },
    { arbitrary: hugeArrayInPlace, weight: 1 },
    { arbitrary: hugeString, weight: 1 },
    { arbitrary: raw, weight: 4 },
    { arbitrary: fc.constant(json('valid body', base)), weight: 1 },
  );
}

export const short = (s: string, n = 60): string => (s.length > n ? `${s.slice(0, n)}…(${s.length})` : s);
