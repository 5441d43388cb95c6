// Bundles the built CLI (dist/) into dist/bundle/ with esbuild: one file per
// command, one per bree job, and shared chunks, with most dependencies inlined.
// Why: Node 20 loads ES modules one file at a time, and `ecf issue` pulled in
// about 650 of them (262 from kysely, 249 from TypeBox), which was most of
// its start-up. Every other package stays external: some find files beside
// themselves at run time (libxml2-wasm's .wasm, the native SQLite addon,
// pino's transports, swagger-ui's assets), and loading them from
// node_modules as they are is what their authors test.
//
// Paths our own code resolves at run time still hold in the bundle: the XSDs
// are found by walking up to package.json (engine/xml/xsd.ts), and the bree
// job files are emitted at the bundle's root, where the scheduler's chunk
// looks for them (checked below).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
/**
 * Packages loaded from node_modules as they are, not inlined: native addons,
 * packages that find files beside themselves at run time (a .wasm, worker
 * scripts, fonts, static assets), and big ones only a few commands load,
 * lazily. Everything else, our dependencies' dependencies included, is inlined.
 */
const EXTERNAL = [
  'better-sqlite3', // native addon
  '@napi-rs/keyring', // native addon
  'libxml2-wasm', // its .wasm beside it
  'pino', 'pino-pretty', 'thread-stream', // transports run in worker threads from files
  'bree', // workers
  'fastify', '@fastify/', // swagger-ui's static assets; serve only
  'pdfkit', // its fonts (.afm) beside it
  'exceljs', // certification workbooks only
  'pg', // PostgreSQL stores only
  'undici', // loaded lazily (engine/net/undici.ts)
  'prom-client', 'close-with-grace', // serve only
  'esbuild', 'tsx', 'vitest', 'typescript', 'ts-node', // development only (oclif looks for a TypeScript setup)
];
const isExternal = (specifier) => EXTERNAL.some((p) => (p.endsWith('/') ? specifier.startsWith(p) : specifier === p || specifier.startsWith(`${p}/`)));

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

// Entries are named from src/, not dist/: tsc leaves the output of a deleted source file in
// dist/, and a stale command or job must not come back to life in the bundle.
const src = join(root, 'src');
const built = (file) => join(dist, relative(src, file)).replace(/\.ts$/, '.js');
const entryPoints = {};
for (const file of walk(join(src, 'cli', 'commands'))) {
  entryPoints[relative(src, file).slice(0, -'.ts'.length).split(sep).join('/')] = built(file);
}
entryPoints.ecf = join(dist, 'cli', 'main.js');
const JOB_SUPPORT = new Set(['scheduler.ts', 'job-runtime.ts']);
for (const file of readdirSync(join(src, 'jobs')).filter((f) => f.endsWith('.ts') && !JOB_SUPPORT.has(f))) {
  entryPoints[file.slice(0, -'.ts'.length)] = built(join(src, 'jobs', file));
}
// Worker threads of the engine's own, started from the module beside them (engine/module-worker.ts).
const THREADS = { 'export-thread': 'engine/export/in-thread.js' };
for (const name of Object.keys(THREADS)) entryPoints[name] = built(join(src, 'engine', 'export', `${name}.ts`));

rmSync(out, { recursive: true, force: true });
const result = await build({
  entryPoints,
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  metafile: true,
  // Inlined CommonJS (oclif) calls require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __ecfCreateRequire } from 'node:module'; const require = __ecfCreateRequire(import.meta.url);" },
  logLevel: 'warning',
  plugins: [
    {
      name: 'external-packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('node:') || isExternal(args.path) ? { path: args.path, external: true } : undefined));
      },
    },
  ],
});

// The scheduler starts jobs, and the export its thread, from files beside their own module: each
// must land at the bundle's root, with them.
const landedAtRoot = (module, what) => {
  const chunk = Object.entries(result.metafile.outputs).find(([, o]) => Object.keys(o.inputs).some((i) => i.endsWith(`dist/${module}`)));
  if (!chunk) throw new Error(`bundle: no output holds dist/${module}`);
  const dir = relative(root, join(chunk[0], '..'));
  if (dir !== relative(root, out)) throw new Error(`bundle: dist/${module} landed in ${dir}, not beside ${what}`);
};
const jobNames = Object.keys(entryPoints).filter((name) => !name.includes('/') && name !== 'ecf' && !(name in THREADS));
landedAtRoot('jobs/scheduler.js', `the jobs (${jobNames.join(', ')})`);
for (const [name, module] of Object.entries(THREADS)) landedAtRoot(module, name);
const files = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js')).length;
const source = readFileSync(join(dist, 'jobs', 'scheduler.js'), 'utf8');
if (!jobNames.every((name) => source.includes(`'${name}'`))) throw new Error(`bundle: the scheduler names a job that is not bundled (have ${jobNames.join(', ')})`);
if (process.env.ECF_BUNDLE_META) (await import('node:fs')).writeFileSync(process.env.ECF_BUNDLE_META, JSON.stringify(result.metafile));
console.log(`dist/bundle: ${Object.keys(entryPoints).length} entries, ${files} files`);
