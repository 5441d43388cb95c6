// Migration 0026's carry-over (issue 35) on a store of BENCH_ROWS e-CF (default 100,000) made by the
// big-store bench's loader (bench/bulk-load.ts: one tenant, every row its own signed document,
// compressed as the engine stores them). The store is taken back to 0025 (the journal dropped),
// then migrated to latest: the figure is the time of 0026 alone, e-CF per second, the journal's
// rows and bytes per e-CF, and this process's peak RSS before and after (the carry reads 2,000
// rows a statement, so its memory must not grow with the store). SQLite only.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import { migrateTo, migrateToLatest } from '../src/engine/store/migrate.js';
import { tenantKey } from '../src/engine/tenants/lookup.js';
import { bulkLoadInChild } from './bulk-load.js';
import { documentPool } from './corpus/pool.js';
import { poolFile, POOL_SEED } from './corpus/pool-file.js';
import { seedBenchIssuer } from './seed.js';
import { keepCertificates } from './stored-documents.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-carry-'));
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
await engine.close();
const loaded = await bulkLoadInChild({ dataDir, rows, poolFile: poolFile(pool.length, POOL_SEED), certificates });
console.log(`store: ${ROWS.toLocaleString('en')} e-CF with their documents, loaded in ${loaded.seconds.toFixed(1)} s`);

engine = await openEngine({ dataDir });
await migrateTo(engine.db, '0025-search-counts');
await sql`pragma wal_checkpoint(TRUNCATE)`.execute(engine.db);
const fileBefore = statSync(join(dataDir, DATABASE_FILE)).size;
const rssBefore = process.resourceUsage().maxRSS / 1024;
const t0 = performance.now();
await migrateToLatest(engine.db);
const seconds = (performance.now() - t0) / 1000;
const rssAfter = process.resourceUsage().maxRSS / 1024;
await sql`pragma wal_checkpoint(TRUNCATE)`.execute(engine.db);
const fileAfter = statSync(join(dataDir, DATABASE_FILE)).size;
const entries = Number((await engine.db.selectFrom('journal').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
await engine.close();

console.log(`0026 carry-over: ${seconds.toFixed(2)} s for ${ROWS.toLocaleString('en')} e-CF, ${Math.round(ROWS / seconds).toLocaleString('en')} e-CF/s; ${entries.toLocaleString('en')} journal entries`);
console.log(`  file grew ${((fileAfter - fileBefore) / ROWS).toFixed(1)} B per e-CF; peak RSS ${rssBefore.toFixed(0)} MiB before the migration, ${rssAfter.toFixed(0)} MiB after`);
console.log(`  at this rate 10,000,000 e-CF: ${((10_000_000 / (ROWS / seconds)) / 60).toFixed(1)} min`);
