import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  /** The appliance's version (package.json), as `ecf --version` says it. */
  readonly version: string;
  /** The Node.js runtime it runs on, e.g. v20.19.0. */
  readonly nodeVersion: string;
}

let known: BuildInfo | undefined;

/**
 * What this process runs: the version of the nearest package.json above this
 * module (src/ under vitest, dist/ after the build, the directory build's
 * app/) and the runtime's. Read once; "unknown" when no package.json is found.
 */
export function buildInfo(): BuildInfo {
  if (known) return known;
  let version = 'unknown';
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
      if (typeof parsed.version === 'string') version = parsed.version;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  known = { version, nodeVersion: process.version };
  return known;
}
