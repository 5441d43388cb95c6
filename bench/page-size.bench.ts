// SQLite's page size, both sides of the trade (docs/performance.md, "The big store"): bigger pages
// leave less slack around ecf_documents' rows of about 1,100 bytes (3 fit a 4 KB page), but every
// commit writes whole pages to the WAL, and an e-CF issued alone changes about 40 of them. For each
// page size (BENCH_PAGE_SIZES, default 4096,8192,16384) a new store is made with that size before
// its first table, BENCH_PAGE_ROWS e-CF (default 2,000) are issued one at a time through the engine,
// and it prints the WAL bytes written per e-CF (checkpoints off while measuring), the time and CPU
// per e-CF, and the bytes of ecf_documents, ecf and the whole file per e-CF. The sizes are exact;
// the times move with the machine's load, so the sizes run alternately, twice.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import { issueEcf } from '../src/engine/ecf/issue.js';
import { payload } from './documents.js';
import { seedBenchIssuer } from './seed.js';

const SIZES = (process.env.BENCH_PAGE_SIZES ?? '4096,8192,16384').split(',').map(Number);
const ROWS = Number(process.env.BENCH_PAGE_ROWS ?? 2000);

async function run(pageSize: number): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-page-'));
  try {
    const file = join(dataDir, DATABASE_FILE);
    // The page size holds from the file's first write; the engine's migrations then create every table in it.
    const pre = new SQLite(file);
    pre.pragma(`page_size = ${pageSize}`);
    pre.exec('create table page_size_probe (x); drop table page_size_probe');
    pre.close();
    const engine = await openEngine({ dataDir });
    const { tenantId } = await seedBenchIssuer(engine, { rangeTo: ROWS + 1000 });
    for (let i = 0; i < 200; i++) await issueEcf(engine, tenantId, { idempotencyKey: `warm-${i}`, payload });
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(engine.db);
    await sql`pragma wal_autocheckpoint = 0`.execute(engine.db);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < ROWS; i++) await issueEcf(engine, tenantId, { idempotencyKey: `page-${i}`, payload });
    const ms = (performance.now() - started) / ROWS;
    const used = process.cpuUsage(cpu);
    const wal = statSync(`${file}-wal`).size / ROWS;
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(engine.db);
    const actual = (await sql<{ page_size: number }>`pragma page_size`.execute(engine.db)).rows[0]!.page_size;
    await engine.close();
    const db = new SQLite(file, { readonly: true });
    const bytes = (name: string) => (db.prepare(`select coalesce(sum(pgsize), 0) as b from dbstat where name = ?`).get(name) as { b: number }).b;
    const rows = ROWS + 200;
    const documents = bytes('ecf_documents') + bytes('sqlite_autoindex_ecf_documents_1');
    const line =
      `page ${String(actual).padStart(5)}: WAL ${(wal / 1024).toFixed(0)} KiB per e-CF issued alone, ${ms.toFixed(2)} ms and ${((used.user + used.system) / 1000 / ROWS).toFixed(2)} ms CPU per e-CF; ` +
      `bytes per e-CF: ecf_documents ${Math.round(documents / rows)}, ecf ${Math.round(bytes('ecf') / rows)}, file ${Math.round(statSync(file).size / rows)}`;
    db.close();
    return line;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`${ROWS.toLocaleString('en')} e-CF issued one at a time per page size (the same document each time: the bytes compare layouts, not compression)`);
for (let round = 0; round < 2; round++) for (const size of SIZES) console.log(await run(size));
