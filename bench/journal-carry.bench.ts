// Migration 0026's carry-over (issue 35) on a store of BENCH_ROWS e-CF (default 100,000) made by the
// big-store bench's loader (bench/bulk-load.ts: one tenant, every row its own signed document,
// compressed as the engine stores them). The store is taken back to 0025 (the journal dropped),
// then migrated to latest: the figure is the time of 0026 alone, e-CF per second, the journal's
// rows and bytes per e-CF, and this process's peak RSS before and after (the carry reads 2,000
// rows a statement, so its memory must not grow with the store). BENCH_PG=1 runs the same on
// PostgreSQL (scripts/with-postgres.sh, a throwaway cluster; bench/bulk-load-pg.ts loads it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import { migrateTo, migrateToLatest } from '../src/engine/store/migrate.js';
import { tenantKey } from '../src/engine/tenants/lookup.js';
import { bulkLoadInChild } from './bulk-load.js';
import { bulkLoadPostgres } from './bulk-load-pg.js';
import { documentPool } from './corpus/pool.js';
import { poolFile, POOL_SEED } from './corpus/pool-file.js';
import { seedBenchIssuer } from './seed.js';
import { keepCertificates } from './stored-documents.js';

const PG = process.env.BENCH_PG === '1';
if (PG && !process.env.ECF_TEST_DATABASE_URL) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const again = spawnSync('sh', [join(root, 'scripts', 'with-postgres.sh'), process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-carry-'));
if (PG) {
  const url = new URL(process.env.ECF_TEST_DATABASE_URL!);
  url.pathname = `/ecf_bench_carry_${process.pid}`;
  writeFileSync(join(dataDir, 'database-url'), `${url}\n`, { mode: 0o600 });
}
process.on('exit', () => {
  if (!process.env.BENCH_KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
});
const end = Date.parse('2026-11-01T04:00:00Z');
const start = end - 365 * 86_400_000;

let engine = await openEngine({ dataDir });
const { tenantId, rnc } = await seedBenchIssuer(engine, { rangeTo: 1000 });
const rangeId = (await engine.db.selectFrom('sequence_ranges').select('id').where('tenant_id', '=', tenantId).where('type', '=', 31).executeTakeFirstOrThrow()).id;
const pool = documentPool();
const rows = { rows: ROWS, tenantId, tenantKey: await tenantKey(engine.db, tenantId), rnc, documents: true, rangeId, start, end };
const certificates = await keepCertificates(engine.db, pool.slice(0, 50).map((d) => d.xml));
let loadedSeconds: number;
if (PG) {
  const r = await bulkLoadPostgres(engine.db, { rows: { ...rows, pool }, certificates, workers: 1 });
  await sql`select setval(pg_get_serial_sequence('ecf', 'store_key'), coalesce(max(store_key), 0) + 1, false) from ecf`.execute(engine.db);
  loadedSeconds = r.seconds;
} else {
  await engine.close();
  loadedSeconds = (await bulkLoadInChild({ dataDir, rows, poolFile: poolFile(pool.length, POOL_SEED), certificates })).seconds;
  engine = await openEngine({ dataDir });
}
console.log(`store: ${ROWS.toLocaleString('en')} e-CF with their documents on ${PG ? 'PostgreSQL' : 'SQLite'}, loaded in ${loadedSeconds.toFixed(1)} s`);

await migrateTo(engine.db, '0025-search-counts');
const storeBytes = async () =>
  PG ? Number((await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(engine.db)).rows[0]!.n) : (await sql`pragma wal_checkpoint(TRUNCATE)`.execute(engine.db), statSync(join(dataDir, DATABASE_FILE)).size);
const fileBefore = await storeBytes();
const rssBefore = process.resourceUsage().maxRSS / 1024;
const t0 = performance.now();
await migrateToLatest(engine.db);
const seconds = (performance.now() - t0) / 1000;
const rssAfter = process.resourceUsage().maxRSS / 1024;
const fileAfter = await storeBytes();
const entries = Number((await engine.db.selectFrom('journal').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
await engine.close();
if (PG) {
  const admin = (await import('pg')).default;
  const client = new admin.Client({ connectionString: process.env.ECF_TEST_DATABASE_URL });
  await client.connect();
  await client.query(`drop database if exists ecf_bench_carry_${process.pid}`);
  await client.end();
}

console.log(`0026 carry-over: ${seconds.toFixed(2)} s for ${ROWS.toLocaleString('en')} e-CF, ${Math.round(ROWS / seconds).toLocaleString('en')} e-CF/s; ${entries.toLocaleString('en')} journal entries`);
console.log(`  store grew ${((fileAfter - fileBefore) / ROWS).toFixed(1)} B per e-CF; peak RSS ${rssBefore.toFixed(0)} MiB before the migration, ${rssAfter.toFixed(0)} MiB after`);
console.log(`  at this rate 10,000,000 e-CF: ${((10_000_000 / (ROWS / seconds)) / 60).toFixed(1)} min`);
