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
  { id: 2, file: 'ecf-2.zdict', sha256: '7e3feba853135aada808d1854dfcb8c3f394c63a1406c7297b80b42647e9111a' },
];

/** The dictionary new documents are compressed with: the newest (dictionaries/README.md says why each was made). */
export const CURRENT_DICTIONARY_ID = 2;

let root: string | undefined;

/** The nearest folder at or above `from` that has a package.json. */
function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * dictionaries/ in the package root: the nearest folder above this module
 * that has a package.json (src/engine/store/documents under tsx or vitest,
 * dist/... after the build), as schemas/ is found. Else the working
 * directory's package root: a bundle written into a node_modules shared by
 * several checkouts (the tests' child-process fixtures) sits under another
 * checkout. Either way a file is used only if its SHA-256 is the pinned one.
 */
export function dictionaryDirectory(): string {
  if (root) return root;
  const candidates = [packageRoot(dirname(fileURLToPath(import.meta.url))), packageRoot(process.cwd())].filter((d): d is string => d !== undefined);
  const found = candidates.map((d) => join(d, 'dictionaries')).find((d) => existsSync(d));
  if (!found) throw new Error(`No dictionaries/ folder in ${candidates.join(' or ') || 'any package root above this module'} (reinstall the appliance).`);
  root = found;
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
