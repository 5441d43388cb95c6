// Queries over a big store: one tenant with BENCH_ROWS e-CF (default 1,000,000) spread over a year.
// Every row is its own: its e-NCF, dates, amounts, buyer; its signed document drawn from the pool of
// 10,000 distinct signed documents (bench/corpus/pool.ts) with the row's e-NCF written into the bytes
// (same length), so no two rows store the same bytes; an accepted e-CF also gets its ecf_attempts
// row and the ecf.submitted and ecf.<verdict> events, as submission writes them.
//
// Prints: bytes on disk per e-CF (the file, WAL checkpointed) and where they go, per table and per
// index (dbstat); the load's time and peak RSS; p50/p99 of every list filter and sort of the
// contract, alone and combined, against p99 <= 10 ms, with GET by id and its XML against 5 ms.
// BENCH_DOCUMENTS=0 leaves the documents out (the rows and indexes alone; 10 million raw documents
// are about 60 GB of disk). BENCH_PG=1 runs the same on PostgreSQL (scripts/with-postgres.sh, a
// throwaway cluster; rows default to 1,000,000 there) and prints its relation sizes.
// BENCH_QUERIES=0 stops after the load and the bytes (to measure a long load alone). BENCH_LOAD_WORKERS
// (default: the cores but one) and BENCH_LOAD_CACHE_MIB (default 32) set the SQLite load (bench/bulk-load.ts);
// BENCH_LOAD_DEFER=0 keeps the indexes and count triggers through the load instead of building them after.
// BENCH_KEEP_DIR=1 keeps the data dir; BENCH_REUSE_DIR=<dir> runs the queries again on a kept data dir
// (no load, no bytes: the engine's migrations run on it when it opens, so a new one is tried on a big store).
// BENCH_PG_REUSE=1 does the same on PostgreSQL: the store is the database ecf_bench_list_<rows> (…_rows
// with BENCH_DOCUMENTS=0), loaded on the first run and kept, queried again (samples drawn from its rows,
// its relation sizes printed again) by every later run. Its cluster must outlive the run:
// ECF_POSTGRES_DIR=<dir> keeps the one scripts/with-postgres.sh starts (or set ECF_TEST_DATABASE_URL).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import type { Engine } from '../src/engine/engine-types.js';
import { ecfXml, getEcf, listEcf, type ListQuery } from '../src/engine/ecf/queries.js';
import { seedStoreTenant, STORE_END, STORE_START } from './big-store.js';
import { bulkLoadInChild } from './bulk-load.js';
import { bulkLoadPostgres } from './bulk-load-pg.js';
import { documentPool } from './corpus/pool.js';
import { poolFile, POOL_SEED } from './corpus/pool-file.js';
import type { RowSamples } from './load-batches.js';
import { keepCertificates } from './stored-documents.js';
import { postgresParts, printParts, sqliteParts } from './store-sizes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const PG = process.env.BENCH_PG === '1';
if (PG && !process.env.ECF_TEST_DATABASE_URL) {
  const again = spawnSync('sh', [join(root, 'scripts', 'with-postgres.sh'), process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const DOCUMENTS = process.env.BENCH_DOCUMENTS !== '0';
const CALLS = 200;
const TARGET_MS = 10;
const GET_TARGET_MS = 5;
/** A query gets at most this long in all (and at least 5 calls), so one slow query cannot take many minutes. */
const BUDGET_MS_PER_QUERY = 15_000;

const REUSE_DIR = process.env.BENCH_REUSE_DIR;
const PG_REUSE = PG && process.env.BENCH_PG_REUSE === '1';
/** Written on a kept PostgreSQL store once its load finished: a store without it is loaded again. */
const LOADED_MARK = `bench load complete: ${ROWS} e-CF`;
const dataDir = REUSE_DIR ?? mkdtempSync(join(tmpdir(), 'ecf-bench-list-'));
// A million signed documents are gigabytes: the directory goes away however the run ends.
process.on('exit', () => {
  if (!process.env.BENCH_KEEP_DIR && !REUSE_DIR) rmSync(dataDir, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));
const start = STORE_START;
const end = STORE_END;
if (REUSE_DIR) await reuse(REUSE_DIR);
const pgDatabase = PG_REUSE ? `ecf_bench_list_${ROWS}${DOCUMENTS ? '' : '_rows'}` : `ecf_bench_list_${process.pid}`;
if (PG) {
  const url = new URL(process.env.ECF_TEST_DATABASE_URL!);
  url.pathname = `/${pgDatabase}`;
  writeFileSync(join(dataDir, 'database-url'), `${url}\n`, { mode: 0o600 });
  if (PG_REUSE && (await keptPostgres(process.env.ECF_TEST_DATABASE_URL!, pgDatabase))) await reuse(dataDir);
}
const engine = await openEngine({ dataDir });
const { tenantId, rowsOptions } = await seedStoreTenant(engine, { rows: ROWS, documents: DOCUMENTS });

// The pool's cache file is built here if missing; the SQLite load reads it from disk (bench/corpus/pool-file.ts).
const pool = documentPool();
// Documents are stored as the engine stores them: compressed, the certificate kept once (bench/stored-documents.ts),
// packed on worker threads (bench/packing.ts).
const certificates = DOCUMENTS ? await keepCertificates(engine.db, pool.slice(0, 50).map((d) => d.xml)) : null;
const WORKERS = process.env.BENCH_LOAD_WORKERS ? Number(process.env.BENCH_LOAD_WORKERS) : undefined;
const CACHE_MIB = process.env.BENCH_LOAD_CACHE_MIB ? Number(process.env.BENCH_LOAD_CACHE_MIB) : undefined;
/** BENCH_LOAD_DEFER=0 keeps the indexes and count triggers through the load (the engine's way), to compare. */
const DEFER = process.env.BENCH_LOAD_DEFER !== '0';

console.log(
  `rows: ${ROWS.toLocaleString('en')} e-CF on ${PG ? 'PostgreSQL' : 'SQLite'}, one tenant, ${new Date(start).toISOString().slice(0, 10)} to ${new Date(end).toISOString().slice(0, 10)};` +
    ` documents: ${DOCUMENTS ? `${pool.length.toLocaleString('en')} distinct signed documents, each row's own e-NCF written in` : 'left out (BENCH_DOCUMENTS=0)'}`,
);
let queries: Engine;
let loaded: RowSamples & { seconds: number; peakRssMiB: number; how: string };
if (PG) {
  const loadStart = performance.now();
  const workers = WORKERS ?? Math.max(1, availableParallelism() - 1);
  const r = await bulkLoadPostgres(engine.db, { rows: { ...rowsOptions, pool }, certificates, workers, deferUpkeep: DEFER }, (done) => {
    // A terminal gets a line rewritten every 10,000 rows; a log a line every 100,000.
    if (done % (process.stdout.isTTY ? 10_000 : 100_000)) return;
    const line = `  ${done.toLocaleString('en')} rows, ${((performance.now() - loadStart) / 1000).toFixed(0)} s, RSS ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MiB`;
    process.stdout.write(process.stdout.isTTY ? `\r${line}` : `${line}\n`);
  });
  if (process.stdout.isTTY) process.stdout.write('\r');
  // The rows came with their store keys (bench/ecf-rows.ts): the identity moves past them, as `ecf migrate-store` does.
  await sql`select setval(pg_get_serial_sequence('ecf', 'store_key'), coalesce(max(store_key), 0) + 1, false) from ecf`.execute(engine.db);
  if (PG_REUSE) await sql`comment on database ${sql.id(pgDatabase)} is ${sql.lit(LOADED_MARK)}`.execute(engine.db);
  queries = engine;
  loaded = {
    ...r,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    how:
      `${r.batch.toLocaleString('en')} per transaction through unnest, two in flight, ${DEFER ? 'indexes and counts after the rows' : 'indexes and counts kept row by row'} (with VACUUM ANALYZE ${r.restoreSeconds.toFixed(1)} s of it), ` +
      `${certificates ? `${workers} packing worker${workers > 1 ? 's' : ''}, ` : ''}this process (the engine's too)`,
  };
} else {
  // The load runs in a process of its own with the engine closed (bench/bulk-load.ts): its peak RSS is the load's alone.
  await engine.close();
  const r = await bulkLoadInChild({ dataDir, rows: rowsOptions, poolFile: poolFile(pool.length, POOL_SEED), certificates, workers: WORKERS, cacheMiB: CACHE_MIB, deferUpkeep: DEFER });
  const perRow = (s: number) => `${((s * 1000) / ROWS).toFixed(3)} ms`;
  loaded = {
    ...r,
    how:
      `${r.batch.toLocaleString('en')} per transaction, ${DEFER ? `indexes and counts after the rows (${r.restoreSeconds.toFixed(1)} s of it), ` : 'indexes and counts kept row by row, '}${!DOCUMENTS ? '' : r.workers ? `${r.workers} packing worker${r.workers > 1 ? 's' : ''}, ` : 'packed on the loading thread, '}SQLite cache ${r.cacheMiB} MiB, its own process;` +
      ` CPU per e-CF ${perRow(r.cpuSeconds)}, of it the loading thread ${perRow(r.loadingThreadSeconds)}` +
      (r.workers ? `, so up to ${Math.round(ROWS / r.loadingThreadSeconds).toLocaleString('en')} e-CF/s with a core free for packing` : ''),
  };
  queries = await openEngine({ dataDir });
}
console.log(
  `load: ${loaded.seconds.toFixed(1)} s (${Math.round(ROWS / loaded.seconds).toLocaleString('en')} e-CF/s; ${loaded.how}), peak RSS ${Math.round(loaded.peakRssMiB)} MB${PG ? ' (the bench process)' : ` (target <= 300 MB: ${loaded.peakRssMiB <= 300 ? 'ok' : 'MISSED'})`};` +
    ` signed XML per e-CF, RFCE included: ${Math.round(loaded.documentBytes / ROWS).toLocaleString('en')} bytes${DOCUMENTS ? '' : ' (not stored)'}`,
);

// ---- where the bytes go ----
if (PG) {
  printParts(await postgresParts(queries.db), ROWS, 'PostgreSQL relations (heap, TOAST, indexes)');
} else {
  const file = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true });
  const fileBytes = statSync(join(dataDir, DATABASE_FILE)).size;
  console.log(`on disk: ecf.sqlite ${(fileBytes / 2 ** 20).toFixed(0)} MiB = ${Math.round(fileBytes / ROWS).toLocaleString('en')} bytes per e-CF, everything included (no WAL after the load)`);
  printParts(sqliteParts(file), ROWS, 'SQLite pages by table and index (dbstat)');
  file.close();
}

// ---- the queries ----
if (process.env.BENCH_QUERIES === '0') {
  await queries.close();
  process.exit(0);
}
await runQueries(queries, tenantId, { ids: loaded.ids, encfs: loaded.encfs, buyerRncs: loaded.buyerRncs, documents: DOCUMENTS });
if (process.env.BENCH_KEEP_DIR) console.log(`data dir kept: ${dataDir}`);

/**
 * Whether the kept PostgreSQL store `database` was loaded to the end (BENCH_PG_REUSE): a load
 * cut short leaves the database without its mark, and it is dropped to be loaded again.
 */
async function keptPostgres(clusterUrl: string, database: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ mark: string | null }>(`select shobj_description(oid, 'pg_database') as mark from pg_database where datname = $1`, [database]);
    if (!rows.length) return false;
    if (rows[0]!.mark === LOADED_MARK) return true;
    console.log(`${database}: its load did not finish; loaded again`);
    await client.query(`drop database ${client.escapeIdentifier(database)} with (force)`);
    return false;
  } finally {
    await client.end();
  }
}

/** The queries again on a kept data dir (or kept PostgreSQL store): the samples are drawn from its rows. */
async function reuse(dir: string): Promise<never> {
  const opening = performance.now();
  const engine = await openEngine({ dataDir: dir });
  console.log(`opened (migrations pending on it included) in ${((performance.now() - opening) / 1000).toFixed(1)} s, peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
  const { id: tenantId } = await engine.db.selectFrom('tenants').select('id').orderBy('created_at').executeTakeFirstOrThrow();
  const rows = (await sql<{ id: string; encf: string; buyer_rnc: string | null }>`select id, encf, buyer_rnc from ecf order by random() limit 5000`.execute(engine.db)).rows;
  const documents = (await sql<{ n: number }>`select count(*) as n from (select 1 from ecf_documents limit 1) d`.execute(engine.db)).rows[0]!.n > 0;
  console.log(`reusing ${PG ? `PostgreSQL database ${pgDatabase}` : dir}: ${rows.length} sampled e-CF`);
  if (PG) {
    const stored = Number((await sql<{ n: number | string }>`select count(*) as n from ecf`.execute(engine.db)).rows[0]!.n);
    printParts(await postgresParts(engine.db), stored, `PostgreSQL relations (heap, TOAST, indexes), ${stored.toLocaleString('en')} e-CF`);
  }
  await runQueries(engine, tenantId, { ids: rows.map((r) => r.id), encfs: rows.map((r) => r.encf), buyerRncs: rows.flatMap((r) => (r.buyer_rnc ? [r.buyer_rnc] : [])), documents });
  process.exit(0);
}

async function runQueries(queries: Engine, tenantId: string, samples: { ids: string[]; encfs: string[]; buyerRncs: string[]; documents: boolean }): Promise<void> {
const sampleIds = samples.ids;
const encfs = samples.encfs;
const rncs = samples.buyerRncs;
const only = process.env.BENCH_ONLY;
const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const any = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const day = (ms: number) => new Date(ms - 4 * 3_600_000).toISOString().slice(0, 10);
const someDay = () => start + Math.floor(Math.random() * 365) * 86_400_000;
const amount = (lo: number, hi: number) => String(Math.round(Math.exp(Math.log(lo) + Math.random() * (Math.log(hi) - Math.log(lo)))));
const types = [31, 32, 33, 34];
const statuses = ['accepted', 'signed', 'rejected', 'failed', 'review', 'accepted_conditional'] as const;
const missed: string[] = [];

async function time(label: string, call: () => Promise<unknown>, target = TARGET_MS): Promise<void> {
  if (only && !label.includes(only)) return;
  const w = performance.now();
  await call();
  if ((performance.now() - w) * CALLS < BUDGET_MS_PER_QUERY) for (let i = 0; i < 4; i++) await call();
  const ms: number[] = [];
  const deadline = performance.now() + BUDGET_MS_PER_QUERY;
  while (ms.length < CALLS && (ms.length < 5 || performance.now() < deadline)) {
    const t = performance.now();
    await call();
    ms.push(performance.now() - t);
  }
  const calls = ms.length;
  ms.sort((a, b) => a - b);
  const p99 = percentile(ms, 99);
  if (p99 > target) missed.push(label);
  console.log(
    `${label.padEnd(58)} p50 ${percentile(ms, 50).toFixed(2).padStart(8)} ms   p99 ${p99.toFixed(2).padStart(8)} ms   (target p99 <= ${target} ms: ${p99 <= target ? 'ok' : 'MISSED'})${calls < CALLS ? `, ${calls} calls (slow)` : ''}`,
  );
}
const list = (q: () => ListQuery) => () => listEcf(queries, tenantId, q());

console.log(`engine functions, up to ${CALLS} calls each (HTTP not included):`);
await time('list: default (page 1, 20)', list(() => ({})));
await time('list: Type', list(() => ({ Type: any(types) })));
await time('list: Status', list(() => ({ Status: any(statuses) })));
await time('list: Environment test', list(() => ({ Environment: 'test' })));
await time('list: Retrying', list(() => ({ Retrying: Math.random() < 0.5 })));
await time('list: Search e-NCF prefix (9-13 chars)', list(() => ({ Search: any(encfs).slice(0, 9 + Math.floor(Math.random() * 5)) })));
await time('list: Search buyer RNC prefix (5-9 digits)', list(() => ({ Search: any(rncs).slice(0, 5 + Math.floor(Math.random() * 5)) })));
await time('list: Search buyer name prefix', list(() => ({ Search: any(['ferre', 'Farmacia Du', 'colmado oz', 'Servicios del Caribe 1']) })));
await time('list: From/To one day', list(() => { const d = day(someDay()); return { From: d, To: d }; }));
await time('list: From/To one month', list(() => { const s = someDay(); return { From: day(s), To: day(s + 30 * 86_400_000) }; }));
await time('list: From only', list(() => ({ From: day(someDay()) })));
await time('list: MinAmount + Sort montoTotal', list(() => ({ MinAmount: amount(100, 1_000_000), Sort: 'montoTotal' })));
await time('list: MaxAmount + Sort montoTotal asc', list(() => ({ MaxAmount: amount(100, 1_000_000), Sort: 'montoTotal', Order: 'asc' })));
await time('list: MinAmount + MaxAmount (issuedAt)', list(() => { const a = Number(amount(100, 100_000)); return { MinAmount: String(a), MaxAmount: String(a * 3) }; }));
await time('list: Type + Status', list(() => ({ Type: any(types), Status: any(statuses) })));
await time('list: Type + From/To month + Status accepted', list(() => { const s = someDay(); return { Type: any(types), From: day(s), To: day(s + 30 * 86_400_000), Status: 'accepted' }; }));
await time('list: From/To month + MinAmount + Sort montoTotal', list(() => { const s = someDay(); return { From: day(s), To: day(s + 30 * 86_400_000), MinAmount: amount(1000, 100_000), Sort: 'montoTotal' }; }));
await time('list: Environment + Type + MinAmount', list(() => ({ Environment: 'production', Type: any(types), MinAmount: amount(100, 100_000) })));
await time('list: Search e-NCF + Status', list(() => ({ Search: any(encfs).slice(0, 10), Status: 'accepted' })));
await time('list: Order asc', list(() => ({ Order: 'asc' })));
await time('list: deep page (Page 500)', list(() => ({ Page: 500 })));
await time('list: deep page (Skip 100,000, Type)', list(() => ({ Skip: 100_000, Type: any(types) })));
await time('getEcf by id', () => getEcf(queries, tenantId, any(sampleIds)), GET_TARGET_MS);
if (samples.documents) await time('ecfXml by id', () => ecfXml(queries, tenantId, any(sampleIds)), GET_TARGET_MS);
console.log(missed.length ? `missed the target: ${missed.join('; ')}` : 'every query within its target');
await queries.close();
}
