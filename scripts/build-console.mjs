// Builds the web console's stylesheet and script (src/console/assets) into
// dist/console/assets with esbuild: minified, content-hashed names (cached
// for a year by the browser: a new build is a new name), each with a .gz and
// a .br beside it (served as the browser accepts), and manifest.json naming
// them, which src/console/assets.ts reads. Called by `npm run build`.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src', 'console', 'assets');
const out = join(root, 'dist', 'console', 'assets');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: [join(src, 'console.ts'), join(src, 'console.css')],
  outdir: out,
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome109', 'firefox115', 'safari15'],
  metafile: true,
  logLevel: 'warning',
});

const manifest = {};
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (!output.entryPoint) continue;
  const name = basename(file);
  manifest[basename(output.entryPoint)] = name;
  const bytes = readFileSync(join(root, file));
  writeFileSync(join(out, `${name}.gz`), gzipSync(bytes, { level: 9 }));
  writeFileSync(join(out, `${name}.br`), brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}
const renamed = { 'console.css': manifest['console.css'], 'console.js': manifest['console.ts'] };
if (!renamed['console.css'] || !renamed['console.js']) throw new Error(`build-console: missing outputs in ${JSON.stringify(manifest)}`);
writeFileSync(join(out, 'manifest.json'), JSON.stringify(renamed, null, 2) + '\n');
console.log(`dist/console/assets: ${renamed['console.css']}, ${renamed['console.js']}`);
