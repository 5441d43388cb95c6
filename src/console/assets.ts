import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/**
 * The console's stylesheet and script, built by `npm run build`
 * (scripts/build-console.mjs) into dist/console/assets with content-hashed
 * names, each beside its .gz and .br, and a manifest.json naming them
 * ({"console.css": "console-<hash>.css", "console.js": ...}). A hashed name
 * never changes content, so it is cached for a year (immutable).
 *
 * The directory is found from the package root (where package.json is), so
 * the same code finds it from src/ (tests), dist/ and the bundle.
 * ECF_CONSOLE_ASSETS points elsewhere (the test of missing assets).
 */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

const assetsDir = (): string => process.env.ECF_CONSOLE_ASSETS ?? join(packageRoot(), 'dist', 'console', 'assets');

interface Manifest {
  readonly 'console.css': string;
  readonly 'console.js': string;
}

let loaded: { dir: string; manifest: Manifest | null } | undefined;

function manifest(): Manifest | null {
  const dir = assetsDir();
  if (loaded?.dir === dir && loaded.manifest) return loaded.manifest;
  let found: Manifest | null = null;
  try {
    const parsed = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
    if (typeof parsed['console.css'] === 'string' && typeof parsed['console.js'] === 'string') found = parsed;
  } catch {
    found = null; // not built: the pages say so
  }
  loaded = { dir, manifest: found };
  return found;
}

/** The URLs of the built stylesheet and script, or null when they are not built. */
export function assetUrls(): { readonly css: string; readonly js: string } | null {
  const m = manifest();
  return m && { css: `/console/assets/${m['console.css']}`, js: `/console/assets/${m['console.js']}` };
}

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };

/** The best encoding the browser accepts of those built: brotli, gzip, or none. */
function encodingFor(accept: string | undefined): 'br' | 'gzip' | null {
  const offered = (accept ?? '').split(',').map((p) => p.trim().split(';'));
  const accepts = (name: string) => offered.some(([n, ...params]) => n?.trim() === name && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p)));
  return accepts('br') ? 'br' : accepts('gzip') ? 'gzip' : null;
}

export function registerAssets(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  const read = (file: string): Buffer => {
    let bytes = cache.get(file);
    if (!bytes) cache.set(file, (bytes = readFileSync(join(assetsDir(), file))));
    return bytes;
  };
  app.get<{ Params: { file: string } }>('/assets/:file', { config: { consoleAccess: 'public' } }, async (request, reply) => {
    const m = manifest();
    const file = request.params.file;
    // Only the names the manifest lists: nothing else of the disk is reachable.
    if (!m || !Object.values(m).includes(file)) return reply.callNotFound();
    const encoding = encodingFor(request.headers['accept-encoding']);
    const body = read(encoding === 'br' ? `${file}.br` : encoding === 'gzip' ? `${file}.gz` : file);
    if (encoding) reply.header('content-encoding', encoding);
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('vary', 'accept-encoding')
      .type(TYPES[file.split('.').pop()!] ?? 'application/octet-stream')
      .send(body);
  });
}
