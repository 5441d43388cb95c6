// Start-up of the built `ecf` (dist/bundle) as ratios to a bare `node -e 0` start in the
// same run: `ecf --version`, `ecf --help`, a cold `ecf issue file.json` (a new process,
// a new document each time; with Node's compile cache, where the runtime has one, and
// without it), and `ecf serve` from spawn to its first HTTP answer.
// The median of RUNS starts each (BENCH_STARTUP_RUNS, default 7). The compile cache lives in
// a temporary XDG_CACHE_HOME of this run, filled by the first start. bench/run.mjs runs this
// on Node 24 and on Node 22. Targets on the reference machine (issues 25 and 33, Node 24):
// --version and --help ≤ 0.3 s, issue ≤ 0.5 s, serve ≤ 0.8 s.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure } from './figures.js';
import { distModules, seedBenchIssuer } from './seed.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'ecf.js');
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 7);
if (!existsSync(join(root, 'dist', 'bundle', 'ecf.js')) || !existsSync(join(root, 'oclif.manifest.json'))) {
  console.log('the bundle or oclif.manifest.json is missing; run `npm run build` first (skipped)');
  process.exit(0);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Wall time of one process run to its exit, in ms; it must succeed. */
function timed(args: string[], env: NodeJS.ProcessEnv = cached): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
  return ms;
}

/** ms from spawning `ecf serve` to the first answer over HTTP. */
function serveFirstAnswer(dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--no-jobs', '--data-dir', dataDir, '--log-level', 'error'], { env: cached, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let answered = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /serving (https?:\/\/\S+?)\/api\/v1/.exec(out);
      if (!m || answered) return;
      answered = true;
      fetch(`${m[1]}/api/v1/tenants`).then(async (r) => {
        await r.text();
        const ms = performance.now() - start;
        child.once('exit', () => resolve(ms));
        child.kill('SIGTERM');
      }, reject);
    });
    child.once('exit', (code) => {
      if (!answered) reject(new Error(`ecf serve exited ${code} before answering: ${out}`));
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-startup-'));
// The compile cache of this run only (bin/compile-cache.js), and none of the caller's.
const { NODE_COMPILE_CACHE: _cache, NODE_DISABLE_COMPILE_CACHE: _off, CACHE_DIRECTORY: _unit, ...callerEnv } = process.env;
const cached = { ...callerEnv, XDG_CACHE_HOME: join(dataDir, 'cache') };
const uncached = { ...callerEnv, NODE_DISABLE_COMPILE_CACHE: '1' };
try {
  const modules = await distModules(root);
  const engine = await modules.openEngine({ dataDir });
  const { tenantId } = await seedBenchIssuer(engine, { rangeTo: 1000 }, modules);
  await engine.close();
  const example = JSON.parse(readFileSync(join(root, 'examples', 'invoice-31.json'), 'utf8')) as { lines: { name: string }[] };
  const env = { ...cached, ECF_DATA_DIR: dataDir };

  const bare: number[] = [];
  const version: number[] = [];
  const help: number[] = [];
  const issue: number[] = [];
  const issueNoCache: number[] = [];
  const serve: number[] = [];
  // Interleaved, so a busy moment of the machine weighs on every kind alike.
  for (let i = 0; i < RUNS; i++) {
    bare.push(timed(['-e', '0'], callerEnv));
    version.push(timed([bin, '--version']));
    help.push(timed([bin, '--help']));
    const file = join(dataDir, `invoice-${i}.json`);
    example.lines[0]!.name = `Cemento gris 42.5 kg, lote ${i}`;
    writeFileSync(file, JSON.stringify(example));
    issue.push(timed([bin, 'issue', file, '--tenant', tenantId, '--env', 'test'], env));
    const other = join(dataDir, `invoice-${i}-b.json`);
    example.lines[0]!.name = `Cemento gris 42.5 kg, lote ${i}-b`;
    writeFileSync(other, JSON.stringify(example));
    issueNoCache.push(timed([bin, 'issue', other, '--tenant', tenantId, '--env', 'test'], { ...uncached, ECF_DATA_DIR: dataDir }));
    serve.push(await serveFirstAnswer(dataDir));
  }
  const base = median(bare);
  const node = `Node ${process.versions.node.split('.')[0]}`;
  const row = (name: string, xs: number[], target?: number) => {
    console.log(`${name.padEnd(34)} ${median(xs).toFixed(0).padStart(6)} ms  ${(median(xs) / base).toFixed(1).padStart(5)} × node -e 0${target ? `   (target ${target} ms)` : ''}`);
    figure(`startup: ${name}`, median(xs), 'ms', 'lower');
    figure(`startup: ${name}, × node -e 0`, median(xs) / base, '×', 'lower');
  };
  console.log(`${node}, compile cache ${typeof ((await import('node:module')).default as { enableCompileCache?: unknown }).enableCompileCache === 'function' ? 'available' : 'not in this runtime'}`);
  console.log(`node -e 0 (bare start)             ${base.toFixed(0).padStart(6)} ms  (median of ${RUNS})`);
  figure('startup: node -e 0', base, 'ms', 'lower');
  row('ecf --version', version, 300);
  row('ecf --help', help, 300);
  row('ecf issue file.json (cold)', issue, 500);
  row('ecf issue, no compile cache', issueNoCache);
  row('ecf serve → first answer', serve, 800);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
