/**
 * JSON bodies as trees the fuzzer can edit at any path, written out as text
 * by hand: a key named `__proto__` stays an ordinary key, and nesting or
 * sizes that would overflow JSON.stringify's recursion go in as raw text.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Text written verbatim where it sits in the tree. */
export class RawJson {
  constructor(readonly text: string) {}
}

export type Tree = Json | RawJson | Tree[] | { [key: string]: Tree };
export type Path = readonly (string | number)[];

const isObject = (v: unknown): v is Record<string, Tree> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawJson);

/** A plain-data object without a prototype: every key, `__proto__` included, is its own. */
export function record(entries: Iterable<readonly [string, Tree]>): Record<string, Tree> {
  const out = Object.create(null) as Record<string, Tree>;
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** Deep copy of a JSON value into prototype-free objects. */
export function toTree(value: unknown): Tree {
  if (Array.isArray(value)) return value.map(toTree);
  if (value !== null && typeof value === 'object') return record(Object.entries(value).map(([k, v]) => [k, toTree(v)] as const));
  return value as Json;
}

export function serialize(tree: Tree): string {
  if (tree instanceof RawJson) return tree.text;
  if (Array.isArray(tree)) return `[${tree.map(serialize).join(',')}]`;
  if (isObject(tree)) return `{${Object.keys(tree).map((k) => `${JSON.stringify(k)}:${serialize(tree[k]!)}`).join(',')}}`;
  return JSON.stringify(tree) ?? 'null';
}

/** Every path in the tree, the root (`[]`) first, with what sits there. */
export function pathsOf(tree: Tree, prefix: Path = []): { path: Path; kind: 'object' | 'array' | 'scalar' }[] {
  if (Array.isArray(tree)) return [{ path: prefix, kind: 'array' }, ...tree.flatMap((v, i) => pathsOf(v, [...prefix, i]))];
  if (isObject(tree)) return [{ path: prefix, kind: 'object' }, ...Object.keys(tree).flatMap((k) => pathsOf(tree[k]!, [...prefix, k]))];
  return [{ path: prefix, kind: 'scalar' }];
}

/** A copy with the value at `path` passed through `edit` (undefined removes it). */
export function editAt(tree: Tree, path: Path, edit: (current: Tree | undefined) => Tree | undefined): Tree | undefined {
  if (path.length === 0) return edit(tree);
  const [head, ...rest] = path;
  if (Array.isArray(tree)) {
    const copy = [...tree];
    const next = editAt(copy[head as number]!, rest, edit);
    if (next === undefined) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  if (isObject(tree)) {
    const copy = record(Object.entries(tree));
    const next = editAt(copy[head as string]!, rest, edit);
    if (next === undefined) delete copy[head as string];
    else copy[head as string] = next;
    return copy;
  }
  return tree;
}

/** `depth` levels of arrays or objects around a leaf, as text. */
export function deepNesting(depth: number, shape: 'array' | 'object'): RawJson {
  return shape === 'array' ? new RawJson(`${'['.repeat(depth)}1${']'.repeat(depth)}`) : new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}

export const describePath = (path: Path): string => (path.length === 0 ? '(body)' : path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, ''));
