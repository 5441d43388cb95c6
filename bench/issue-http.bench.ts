// Issuing over HTTP, end to end: POST /api/v1/ecf against the real app listening on
// loopback (in a child process, bench/issue-server.ts), with N requests kept in flight.
// Prints, per N, e-CF/s, p50/p90/p99/max latency, and e-CF/s ÷ raw RSA-2048 signs/s measured
// in this run while the server is idle (targets: ratio >= 0.50, p99 <= 25 ms at N = 16).
// Then the cold CLI: wall time of `node bin/ecf.js issue <file> --data-dir <dir> --json`
// (target <= 1 s). Environment: BENCH_SECONDS (per N, default 4), BENCH_CLIENTS (default 1,16,64),
// BENCH_IDENTICAL=0 (skip the identical-body run), BENCH_CPU_PROF_DIR (profile the server),
// BENCH_COMPRESS=0 (the server stores documents uncompressed: the run to compare compression with).
import { fork, spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { payload } from './documents.js';
import { identicalBody, load, percentile, type Target } from './http-load.js';
import { distModules, isBuilt, seedBenchIssuer } from './seed.js';
import { figure } from './figures.js';
import { rate } from './measure.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const CLIENTS = (process.env.BENCH_CLIENTS ?? '1,16,64').split(',').map(Number);

// ---- the server, in its own process ----
const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-http-'));
const temporary = [dataDir];
process.on('exit', () => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});
// BENCH_CPU_PROF_DIR=<dir> writes a V8 CPU profile of the server process there.
const profDir = process.env.BENCH_CPU_PROF_DIR;
const server = fork(join(root, 'bench', 'issue-server.ts'), [dataDir], {
  execArgv: ['--import', 'tsx', ...(process.env.BENCH_TRACE_GC ? ['--trace-gc'] : []), ...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [])],
  stdio: 'inherit',
});
const ready = await new Promise<{ port: number; key: string }>((resolve, reject) => {
  server.once('message', (m) => resolve(m as { port: number; key: string }));
  server.once('exit', (code) => reject(new Error(`issue-server exited with ${code} before listening`)));
});
interface ServerUsage {
  readonly cpu: NodeJS.CpuUsage;
  readonly elu: { readonly active: number };
}
const serverUsage = () =>
  new Promise<ServerUsage>((resolve) => {
    server.once('message', (m) => resolve(m as ServerUsage));
    server.send('cpu');
  });

// ---- raw RSA-2048 while the server is idle ----
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signedInfoSized = Buffer.alloc(800, 'a');
const raw = rate(() => sign('sha256', signedInfoSized, privateKey));

const fmt = (n: number, w = 7, d = 0) => n.toFixed(d).padStart(w);
console.log(`document: e-CF 31, 12 lines, ${identicalBody.length} bytes of JSON (first line name numbered per request); server in a child process, ${seconds} s per N`);
console.log(`raw RSA-2048 sign (server idle)   ${fmt(raw)} /s`);

const target: Target[] = [{ port: ready.port, key: ready.key }];
await load(target, 4, 1000); // warm-up: JIT, statement cache, credentials opened
let totalErrors = 0;
async function measure(label: string, n: number, identical = false): Promise<void> {
  const usage0 = await serverUsage();
  const own0 = process.cpuUsage();
  const r = await load(target, n, seconds * 1000, identical);
  const own = process.cpuUsage(own0);
  const usage1 = await serverUsage();
  const okPerSec = r.latencies.length / r.elapsed;
  const errors = [...r.failures.values()].reduce((a, b) => a + b, 0);
  totalErrors += errors;
  const p50 = percentile(r.latencies, 50);
  const p90 = percentile(r.latencies, 90);
  const p99 = percentile(r.latencies, 99);
  const max = r.latencies.at(-1) ?? NaN;
  const serverCpuMs = (usage1.cpu.user - usage0.cpu.user + usage1.cpu.system - usage0.cpu.system) / 1000;
  const serverCpuShare = (serverCpuMs / 1000 / r.elapsed) * 100;
  // Per e-CF: CPU of the whole server process (RSA on the thread pool included) and busy time of its event loop.
  const perEcf = (ms: number) => (r.latencies.length ? (ms / r.latencies.length).toFixed(2) : '-');
  const loopMs = usage1.elu.active - usage0.elu.active;
  const clientCpuShare = ((own.user + own.system) / 1e6 / r.elapsed) * 100;
  const ratio = okPerSec / raw;
  const ratioMark = ratio >= 0.5 ? 'ok' : 'MISSED';
  const p99Target = n === 16 && !identical ? `   (target <= 25 ms: ${p99 <= 25 ? 'ok' : 'MISSED'})` : '';
  console.log(
    `${label} N=${String(n).padStart(2)}  ${fmt(okPerSec)} e-CF/s   p50 ${fmt(p50, 6, 1)} ms   p90 ${fmt(p90, 6, 1)} ms   p99 ${fmt(p99, 6, 1)} ms${p99Target}   max ${fmt(max, 6, 1)} ms` +
      `   ratio ${ratio.toFixed(3)}${identical ? '' : ` (target >= 0.50: ${ratioMark})`}   CPU server ${fmt(serverCpuShare, 3)}% client ${fmt(clientCpuShare, 3)}%` +
      `   per e-CF: server CPU ${perEcf(serverCpuMs)} ms, event loop busy ${perEcf(loopMs)} ms` +
      `   201: ${r.latencies.length}, errors: ${errors}${errors ? ` ${JSON.stringify(Object.fromEntries(r.failures))}` : ''}`,
  );
  if (r.firstFailure) console.log(`      first failure: ${r.firstFailure}`);
  if (!identical) {
    figure(`issue-http: ${n} clients`, okPerSec, 'e-CF/s', 'higher');
    figure(`issue-http: ${n} clients p99`, p99, 'ms', 'lower');
  }
}
for (const n of CLIENTS) await measure('distinct ', n);
// Every request the same sale: each one is checked against all the earlier ones within duplicates.window_minutes.
if (process.env.BENCH_IDENTICAL !== '0') await measure('IDENTICAL', 16, true);
console.log(`all responses 201: ${totalErrors === 0 ? 'yes' : `no, ${totalErrors} errors`}`);

server.send('close');
await new Promise((resolve) => server.once('exit', resolve));

// ---- cold CLI ----
const bin = join(root, 'bin', 'ecf.js');
if (!isBuilt(root)) {
  console.log('cold CLI: dist/ is missing; run `npm run build` first (skipped)');
} else if (spawnSync(process.execPath, [bin, 'issue', '--help'], { cwd: root, stdio: 'ignore' }).status !== 0) {
  console.log('cold CLI: ecf issue not available (skipped)');
} else {
  // Seeded with the build's own engine (dist/), so the data dir has the migrations the CLI expects.
  const cliDir = mkdtempSync(join(tmpdir(), 'ecf-bench-cli-'));
  temporary.push(cliDir);
  const dist = await distModules(root);
  const engine = await dist.openEngine({ dataDir: cliDir });
  await seedBenchIssuer(engine, { rangeTo: 1000 }, dist);
  await engine.close();
  const times: number[] = [];
  let failed: string | undefined;
  for (let i = 0; i < 3; i++) {
    const file = join(cliDir, `invoice-${i}.json`);
    writeFileSync(file, JSON.stringify({ ...payload, internalNumber: `CLI-${Date.now().toString(36)}-${i}` }));
    const start = performance.now();
    const out = spawnSync(process.execPath, [bin, 'issue', file, '--data-dir', cliDir, '--json'], { cwd: root, encoding: 'utf8' });
    times.push(performance.now() - start);
    if (out.status !== 0) failed ??= `exit ${out.status}: ${(out.stdout + out.stderr).slice(0, 400)}`;
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[1]!;
  console.log(
    `cold CLI \`ecf issue <file> --json\`: best ${fmt(sorted[0]!, 5)} ms, median ${fmt(median, 5)} ms` +
      ` (target <= 1000 ms: ${median <= 1000 ? 'ok' : 'MISSED'}); runs ${times.map((t) => t.toFixed(0)).join(', ')} ms`,
  );
  if (failed) console.log(`      a run failed: ${failed}`);
  else figure('issue-http: cold ecf issue', median, 'ms', 'lower');
}
