// Where `better-sqlite3` (or one of its subpaths) goes on a runtime that loads the cache's copy
// (bench/native-hook.mjs); undefined for every other specifier.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export function redirect(specifier, packageDir) {
  if (specifier === 'better-sqlite3') return pathToFileURL(join(packageDir, 'lib', 'index.js')).href;
  if (specifier.startsWith('better-sqlite3/')) return pathToFileURL(join(packageDir, specifier.slice('better-sqlite3/'.length))).href;
  return undefined;
}
