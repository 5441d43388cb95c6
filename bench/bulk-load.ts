// The big-store bench's SQLite load, in a process of its own (bench/list-million.bench.ts starts
// it with the engine closed), so the peak RSS it reports is the load's alone: the rows made on
// this thread (bench/ecf-rows.ts), their documents packed on worker threads (bench/packing.ts),
// the pool read from its cache file at each use (bench/corpus/pool-file.ts), each batch inserted
// in one transaction through better-sqlite3 with a bounded page cache. Nothing it holds grows
// with the number of rows but the few thousand samples the queries draw from.
import { availableParallelism } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { poolOnDisk } from './corpus/pool-file.js';
import { rowMaker, type RowsOptions } from './ecf-rows.js';
import { deferSqlite, restoreSqlite } from './deferred-upkeep.js';
import { rowBatches, rowSampler, type RowSamples } from './load-batches.js';
import { packingWorkers } from './packing.js';
import type { CertificateIds } from './stored-documents.js';

/**
 * V8's young generation is sized for throughput by default (its heap grew to 170 MB in a load of
 * rows without documents, of which 60 MB live); each row is garbage once inserted, so a small one
 * costs little and keeps the load's memory flat. --expose-gc lets the load collect the documents'
 * buffers, which V8 would let pile up (bench/pack-worker.ts).
 */
const NODE_FLAGS = (process.env.BENCH_LOAD_NODE_FLAGS ?? '--max-semi-space-size=4 --max-old-space-size=128 --expose-gc').split(' ').filter(Boolean);

/** Node 23.9+ (the installed @types/node predates it): the calling thread's CPU time alone. */
const threadCpuUsage = (previous?: NodeJS.CpuUsage): NodeJS.CpuUsage => (process as unknown as { threadCpuUsage(p?: NodeJS.CpuUsage): NodeJS.CpuUsage }).threadCpuUsage(previous);

export interface BulkLoad {
  readonly dataDir: string;
  /** rowMaker's options but the pool, which the load reads from `poolFile`. */
  readonly rows: Omit<RowsOptions, 'pool'>;
  readonly poolFile: string;
  /** Null leaves the documents out. */
  readonly certificates: CertificateIds | null;
  /** Worker threads that pack documents (default: the cores but one, at least one; 0 packs on the loading thread). */
  readonly workers?: number;
  /** Rows per batch, made, packed and inserted together (one transaction). */
  readonly batch?: number;
  /** SQLite's page cache for the load, in MiB. */
  readonly cacheMiB?: number;
  /** Up to this many sampled e-CF for the queries. */
  readonly samples?: number;
  /**
   * Load as a restore does (default true): the secondary indexes and the count triggers dropped,
   * then the indexes built and the counts filled in one pass each (bench/deferred-upkeep.ts).
   * False keeps them through the load, as the engine's own inserts do.
   */
  readonly deferUpkeep?: boolean;
}

export interface BulkLoaded extends RowSamples {
  readonly seconds: number;
  /** CPU time of the whole load process (every thread), and of the thread that makes and inserts the rows alone. */
  readonly cpuSeconds: number;
  readonly loadingThreadSeconds: number;
  readonly peakRssMiB: number;
  readonly workers: number;
  readonly batch: number;
  readonly cacheMiB: number;
  /** Of `seconds`, the indexes built and the counts filled after the rows (0 when not deferred). */
  readonly restoreSeconds: number;
}

export async function bulkLoad(o: BulkLoad, onProgress?: (done: number) => void): Promise<BulkLoaded> {
  const batch = o.batch ?? 250;
  const cacheMiB = o.cacheMiB ?? 32;
  const workers = o.certificates ? (o.workers ?? Math.max(1, availableParallelism() - 1)) : 0;
  const pool = poolOnDisk(o.poolFile);
  const make = rowMaker({ ...o.rows, pool: pool.documents });
  const packing = o.certificates ? packingWorkers(o.certificates, workers) : null;
  const db = new SQLite(join(o.dataDir, DATABASE_FILE));
  // The engine is closed: the load may leave WAL (the signed bytes are written once instead of
  // twice: WAL, then checkpoint) and puts it back afterwards.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('foreign_keys = ON');
  // The page cache bounds the memory of CREATE INDEX too: SQLite's sorter keeps at most about
  // cache_size of keys in memory before it writes a sorted run to a temporary file (temp_store =
  // file; mmap_size 0 keeps those files out of the address space), so a 10-million-row index
  // builds in the same memory as a small one.
  db.pragma(`cache_size = ${-cacheMiB * 1024}`);
  db.pragma('temp_store = file');
  db.pragma('mmap_size = 0');
  const deferred = o.deferUpkeep === false ? null : deferSqlite(db);
  const statements = new Map<string, SQLite.Statement>();
  const statement = (table: string, row: Record<string, unknown>) => {
    const columns = Object.keys(row);
    const key = `${table}(${columns.join(',')})`;
    let s = statements.get(key);
    if (!s) statements.set(key, (s = db.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`)));
    return s;
  };
  const insert = db.transaction((tables: { [table: string]: Record<string, unknown>[] }) => {
    for (const [table, rows] of Object.entries(tables)) for (const r of rows) statement(table, r).run(r);
  });
  const { samples, onRow } = rowSampler(o.rows.rows, o.samples);
  const start = performance.now();
  const cpu = process.cpuUsage();
  const threadCpu = threadCpuUsage();
  try {
    for await (const b of rowBatches({ rows: o.rows.rows, batch, depth: 2, make, packing, onRow })) {
      insert(b.tables);
      onProgress?.(b.to);
    }
  } finally {
    await packing?.close();
    pool.close();
  }
  const restoreStart = performance.now();
  if (deferred) restoreSqlite(db, deferred);
  const restoreSeconds = (performance.now() - restoreStart) / 1000;
  db.pragma('journal_mode = WAL');
  db.close();
  const seconds = (performance.now() - start) / 1000;
  const used = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
  const cpuSeconds = used(process.cpuUsage(cpu));
  const loadingThreadSeconds = used(threadCpuUsage(threadCpu));
  return { ...samples, seconds, cpuSeconds, loadingThreadSeconds, peakRssMiB: process.resourceUsage().maxRSS / 1024, workers, batch, cacheMiB, restoreSeconds };
}

/**
 * Runs bulkLoad in a child process and returns what it loaded. The child runs this file and the
 * packing worker bundled by esbuild into .cache/bench-load/ (the same code, compiled once): under
 * tsx, each thread would load TypeScript through tsx's loader, 20 to 30 MB more of the load's
 * memory that the load itself does not need.
 */
export async function bulkLoadInChild(o: BulkLoad): Promise<BulkLoaded> {
  const { spawn } = await import('node:child_process');
  const { build } = await import('esbuild');
  const outdir = fileURLToPath(new URL('../.cache/bench-load/', import.meta.url));
  await build({
    entryPoints: { 'bulk-load': fileURLToPath(import.meta.url), 'pack-worker': fileURLToPath(new URL('./pack-worker.ts', import.meta.url)) },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: ['better-sqlite3'],
    // Inlined CommonJS calls require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
    logLevel: 'error',
  });
  const request = join(o.dataDir, 'bulk-load.json');
  writeFileSync(request, JSON.stringify(o));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, join(outdir, 'bulk-load.mjs'), request], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`the bulk load exited with ${signal ?? code}`));
      resolve(JSON.parse(readFileSync(`${request}.out`, 'utf8')) as BulkLoaded);
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const request = process.argv[2]!;
  const o = JSON.parse(readFileSync(request, 'utf8')) as BulkLoad;
  const started = performance.now();
  let shown = 0;
  const loaded = await bulkLoad(o, (done) => {
    // A terminal gets a line rewritten every 20,000 rows; a log a line every 100,000.
    if (done - shown < (process.stdout.isTTY ? 20_000 : 100_000) && done < o.rows.rows) return;
    shown = done;
    const line = `  ${done.toLocaleString('en')} rows, ${((performance.now() - started) / 1000).toFixed(0)} s, RSS ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MiB`;
    process.stdout.write(process.stdout.isTTY ? `\r${line}` : `${line}\n`);
  });
  if (process.stdout.isTTY) process.stdout.write('\r');
  writeFileSync(`${request}.out`, JSON.stringify(loaded));
}
