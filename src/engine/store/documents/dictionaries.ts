import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The zstd dictionaries shipped in `dictionaries/` at the package root
 * (beside `schemas/`; how each was made: dictionaries/README.md). A blob names
 * the dictionary it was compressed with, and documents are kept ten years:
 * a shipped dictionary is never changed or removed, a new one gets a new id
 * (test/engine/store/documents/dictionaries.test.ts pins each one).
 */
export interface ShippedDictionary {
  readonly id: number;
  readonly file: string;
  /** Hex SHA-256 of the file: a changed or damaged file is refused, never used. */
  readonly sha256: string;
}

export const SHIPPED_DICTIONARIES: readonly ShippedDictionary[] = [
  { id: 1, file: 'ecf-1.zdict', sha256: '295a28e2d5e3903ee090cae7f27774ab87f7c4cbe14e33567ba8b9ff98e0e527' },
];

/** The dictionary new documents are compressed with. */
export const CURRENT_DICTIONARY_ID = 1;

let root: string | undefined;

/** dictionaries/ in the package root: the nearest folder above this module that has a package.json. */
export function dictionaryDirectory(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${dirname(fileURLToPath(import.meta.url))}; cannot find dictionaries/`);
    dir = parent;
  }
  root = join(dir, 'dictionaries');
  return root;
}

const loaded = new Map<number, Buffer>();

/** The dictionary's bytes, checked against its pinned SHA-256; null for an id never shipped. */
export function dictionaryBytes(id: number): Buffer | null {
  const known = loaded.get(id);
  if (known) return known;
  const shipped = SHIPPED_DICTIONARIES.find((d) => d.id === id);
  if (!shipped) return null;
  const path = join(dictionaryDirectory(), shipped.file);
  if (!existsSync(path)) throw new Error(`The document dictionary ${id} is missing: ${path} does not exist (reinstall the appliance).`);
  const bytes = readFileSync(path);
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== shipped.sha256) throw new Error(`The document dictionary ${id} (${path}) is not the one shipped: SHA-256 ${sha}, expected ${shipped.sha256} (reinstall the appliance).`);
  loaded.set(id, bytes);
  return bytes;
}
