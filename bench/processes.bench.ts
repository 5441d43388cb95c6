// Issuing throughput with one and with three `ecf serve` processes on one PostgreSQL
// database, beside one process on SQLite, in the same run on the same machine: the
// real server (dist/, jobs off so only issuing is measured), 16 clients spread over
// the processes, POST /api/v1/ecf for one tenant (one e-NCF range all processes share).
// Needs a PostgreSQL server: without ECF_TEST_DATABASE_URL it runs itself again under
// scripts/with-postgres.sh (a throwaway cluster). Environment: BENCH_SECONDS (default 6).
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { load, percentile, type Target } from './http-load.js';
import { distModules, seedBenchIssuer } from './seed.js';
import { startServe } from '../test/serve-process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const CLIENTS = 16;

const server = process.env.ECF_TEST_DATABASE_URL;
if (!server) {
  const installed = existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').length > 0;
  if (!installed && !process.env.ECF_POSTGRES_BIN) {
    console.log('no PostgreSQL server on this machine (install the postgresql package): skipped');
    process.exit(0);
  }
  const again = spawnSync('sh', [join(root, 'scripts', 'with-postgres.sh'), process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}
if (!existsSync(join(root, 'dist', 'bundle', 'ecf.js'))) {
  console.log('dist/ is missing; run `npm run build` first (skipped)');
  process.exit(0);
}

const temporary: string[] = [];
const databases: string[] = [];
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

async function serve(dataDir: string): Promise<number> {
  const { child, base } = await startServe(dataDir, { args: ['--no-jobs'], logLevel: 'error', env: { ...process.env, ECF_DATABASE_URL: '' } });
  children.push(child);
  return Number(new URL(base).port);
}

async function stopAll(): Promise<void> {
  await Promise.all(children.splice(0).map((c) => new Promise((resolve) => (c.once('exit', resolve), c.kill('SIGTERM')))));
}

const dist = await distModules(root);

/** A data directory with an issuer, on SQLite or on a new PostgreSQL database. */
async function appliance(store: 'sqlite' | 'postgres'): Promise<{ dataDir: string; key: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-processes-'));
  temporary.push(dataDir);
  if (store === 'postgres') {
    const name = `ecf_bench_${process.pid}_${databases.length}`;
    databases.push(name);
    const url = new URL(server!);
    url.pathname = `/${name}`;
    writeFileSync(join(dataDir, 'database-url'), `${url}\n`, { mode: 0o600 });
  }
  const engine = await dist.openEngine({ dataDir });
  const seeded = await seedBenchIssuer(engine, { rangeTo: 10_000_000 }, dist);
  await engine.close();
  return { dataDir, key: seeded.key };
}

const fmt = (n: number, w = 7, d = 0) => n.toFixed(d).padStart(w);
console.log(`issuing over HTTP, ${CLIENTS} clients spread over the processes, ${seconds} s each, one tenant; ${availableParallelism()} cores`);
let baseline = 0;
for (const [store, processes] of [['sqlite', 1], ['postgres', 1], ['postgres', 3]] as const) {
  const { dataDir, key } = await appliance(store);
  const ports: number[] = [];
  for (let i = 0; i < processes; i++) ports.push(await serve(dataDir));
  const targets: Target[] = ports.map((port) => ({ port, key }));
  await load(targets, 4, 1000); // warm-up: JIT, statements, credentials
  const r = await load(targets, CLIENTS, seconds * 1000);
  await stopAll();
  const rate = r.latencies.length / r.elapsed;
  if (store === 'sqlite') baseline = rate;
  const errors = [...r.failures.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${store.padEnd(8)} x${processes}  ${fmt(rate)} e-CF/s   p50 ${fmt(percentile(r.latencies, 50), 6, 1)} ms   p99 ${fmt(percentile(r.latencies, 99), 6, 1)} ms` +
      `   vs SQLite x1 ${(rate / baseline).toFixed(2)}   errors: ${errors}${r.firstFailure ? ` (first: ${r.firstFailure})` : ''}`,
  );
}

const admin = new pg.Client({ connectionString: server });
await admin.connect();
for (const name of databases) await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
await admin.end();

