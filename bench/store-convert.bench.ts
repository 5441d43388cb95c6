// The in-place conversion of a store written before migration 0017, and `ecf store verify`'s
// engine function over the result: BENCH_CONVERT_ROWS e-CF (default 1,000,000) whose signed XML
// (and RFCE for type 32) sit raw, drawn from the 10,000 distinct documents of bench/corpus/pool.ts
// with each row's own e-NCF written into its bytes (bench/raw-store.ts). The store is loaded by a
// child process, so the peak RSS printed is the conversion's and the verify's alone (target
// <= 300 MB); verify's target is >= 20,000 documents per second. BENCH_KEEP_DIR=1 keeps the data dir.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import { convertDocuments, verifyStore } from '../src/engine/store/document-upkeep.js';
import { figure } from './figures.js';

const ROWS = Number(process.env.BENCH_CONVERT_ROWS ?? 1_000_000);

if (process.argv[2] === 'load') {
  // Only the loading child imports the pool: its module graph (the corpus's signing and XML code)
  // was 120 MB of this process's heap before the conversion began, and counted in its peak.
  const { loadRawStore } = await import('./raw-store.js');
  const r = await loadRawStore(process.argv[3]!, Number(process.argv[4]));
  console.log(`load: ${Number(process.argv[4]).toLocaleString('en')} raw e-CF in ${r.seconds.toFixed(1)} s; ${Math.round(r.documentBytes / Number(process.argv[4])).toLocaleString('en')} bytes of signed XML per e-CF (RFCE included)`);
  process.exit(0);
}

const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-convert-'));
process.on('exit', () => {
  if (!process.env.BENCH_KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));
execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'load', dataDir, String(ROWS)], { stdio: 'inherit' });

const size = (f: string) => {
  try {
    return statSync(join(dataDir, f)).size;
  } catch {
    return 0;
  }
};
const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
const peakMb = () => process.resourceUsage().maxRSS / 1024;
console.log(`before: ecf.sqlite ${mib(size(DATABASE_FILE))}`);

const engine = await openEngine({ dataDir, backgroundCheckpoints: true });
let last = 0;
// Where the memory is when RSS peaks: V8's heap, external memory (Buffers: the documents read and
// written), and the rest (native: SQLite's page caches, zstd's contexts, malloc's arenas).
const mb = (n: number) => Math.round(n / 2 ** 20);
let atPeak = process.memoryUsage();
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  if (m.rss > atPeak.rss) atPeak = m;
}, 100);
const t = performance.now();
const report = await convertDocuments(engine, {
  onProgress: (p) => {
    if (process.stdout.isTTY && (p.finished || p.done - last >= 50_000)) {
      last = p.done;
      process.stdout.write(`\r  ${p.table}: ${p.done.toLocaleString('en')}/${p.total.toLocaleString('en')} rows, ${Math.round(p.rate).toLocaleString('en')} documents/s `);
    }
  },
});
const seconds = (performance.now() - t) / 1000;
if (process.stdout.isTTY) process.stdout.write('\n');
const convertPeak = peakMb();
clearInterval(sampler);
console.log(
  `memory at the highest RSS sampled (every 100 ms): RSS ${mb(atPeak.rss)} MB = V8 heap ${mb(atPeak.heapTotal)} (${mb(atPeak.heapUsed)} used) + external ${mb(atPeak.external)} (of it array buffers ${mb(atPeak.arrayBuffers)})` +
    ` + native and code ${mb(atPeak.rss - atPeak.heapTotal - atPeak.external)}`,
);
console.log(
  `convert: ${report.converted.toLocaleString('en')} documents of ${ROWS.toLocaleString('en')} e-CF in ${seconds.toFixed(1)} s (${Math.round(report.converted / seconds).toLocaleString('en')} documents/s), ` +
    `${report.damagedCount} damaged; peak RSS ${convertPeak.toFixed(0)} MB (target <= 300 MB: ${convertPeak <= 300 ? 'ok' : 'MISSED'})`,
);
console.log(`after: ecf.sqlite ${mib(size(DATABASE_FILE))} + wal ${mib(size(`${DATABASE_FILE}-wal`))} (freed pages stay in the file until VACUUM)`);
figure('store convert: documents per second', report.converted / seconds, 'doc/s', 'higher');

const verified = await verifyStore(engine);
const rate = verified.documents / verified.seconds;
const verifyPeak = peakMb();
console.log(
  `verify: ${verified.documents.toLocaleString('en')} documents in ${verified.seconds.toFixed(1)} s = ${Math.round(rate).toLocaleString('en')} documents/s (target >= 20,000: ${rate >= 20_000 ? 'ok' : 'MISSED'}), ` +
    `${verified.damaged.length} damaged; peak RSS ${verifyPeak.toFixed(0)} MB`,
);
figure('store verify: documents per second', rate, 'doc/s', 'higher');
await engine.close();
