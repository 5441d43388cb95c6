// The period export (docs/record.md): one tenant with BENCH_EXPORT_ROWS e-CF (default 2,000)
// issued in one month (October 2026), each its own signed document drawn from the pool of 10,000
// distinct documents with the row's e-NCF written in (bench/corpus/pool.ts, loaded as
// bench/list-million.bench.ts loads its store), exported with `exportPeriodFile`, then checked with
// `verifyExport` (the documents' own signatures too; BENCH_EXPORT_SIGNATURES=0 leaves them out).
// Each runs in a process of its own, so its peak RSS is its own.
//
// BENCH_EXPORT_NODE_FLAGS: Node flags for the two measured children (none unless given).
// Prints: e-CF per second and peak RSS of the export (target <= 300 MB at 1,000,000) and of the
// verification, the ZIP's size per e-CF. BENCH_KEEP_DIR=1 keeps the data dir and the ZIP.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Node flags of the measured children (none by default, as `ecf export` runs): e.g. '--max-semi-space-size=8'
// bounds V8's young generation, which grows to 128 MB under the export's allocation rate (docs/record.md).
const NODE_FLAGS = (process.env.BENCH_EXPORT_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const CHILD = process.argv[2];
if (CHILD === 'export' || CHILD === 'verify') await child(CHILD, process.argv[3]!, process.argv[4]!);
else await main();

/** One measured step in this process: prints its seconds and peak RSS as JSON on the last line. */
async function child(step: 'export' | 'verify', dataDir: string, file: string): Promise<void> {
  const began = performance.now();
  // Where the memory is at the peak: process.memoryUsage() sampled, the sample of the highest RSS kept.
  let peak = process.memoryUsage();
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    if (now.rss > peak.rss) peak = now;
  }, 50);
  const mib = (n: number) => Math.round(n / 2 ** 20);
  const memory = () => {
    clearInterval(sampler);
    return { rss: mib(peak.rss), heapTotal: mib(peak.heapTotal), heapUsed: mib(peak.heapUsed), external: mib(peak.external), arrayBuffers: mib(peak.arrayBuffers) };
  };
  if (step === 'export') {
    const { openEngine } = await import('../src/engine/engine.js');
    const { exportPeriod, exportPeriodFile } = await import('../src/engine/export/index.js');
    const engine = await openEngine({ dataDir });
    const { id } = await engine.db.selectFrom('tenants').select('id').executeTakeFirstOrThrow();
    // The production e-CF (92 % of the loaded rows; bench/ecf-rows.ts spreads them over the three environments).
    const report = await exportPeriodFile(engine, id, exportPeriod({ month: '2026-10' }), file, { environment: 'production' });
    await engine.close();
    console.log(JSON.stringify({ seconds: (performance.now() - began) / 1000, peakRssMiB: process.resourceUsage().maxRSS / 1024, issued: report.issued, files: report.files, memory: memory() }));
  } else {
    const { verifyExport } = await import('../src/engine/export/index.js');
    const report = await verifyExport(file, { signatures: process.env.BENCH_EXPORT_SIGNATURES !== '0' });
    console.log(JSON.stringify({ seconds: (performance.now() - began) / 1000, peakRssMiB: process.resourceUsage().maxRSS / 1024, ok: report.ok, problems: report.problems.slice(0, 5), signatures: report.signaturesChecked, memory: memory() }));
  }
}

function measured(step: 'export' | 'verify', dataDir: string, file: string): Record<string, unknown> & { seconds: number; peakRssMiB: number } {
  const r = spawnSync(process.execPath, [...NODE_FLAGS, '--import', 'tsx', fileURLToPath(import.meta.url), step, dataDir, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${step} failed (${r.status}): ${r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as never;
}

async function main(): Promise<void> {
  const { openEngine } = await import('../src/engine/engine.js');
  const { issueEcf } = await import('../src/engine/ecf/issue.js');
  const { tenantKey } = await import('../src/engine/tenants/lookup.js');
  const { bulkLoadInChild } = await import('./bulk-load.js');
  const { documentPool } = await import('./corpus/pool.js');
  const { poolFile, POOL_SEED } = await import('./corpus/pool-file.js');
  const { payload } = await import('./documents.js');
  const { seedBenchIssuer } = await import('./seed.js');
  const { keepCertificates } = await import('./stored-documents.js');

  const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 2_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-export-'));
  process.on('exit', () => {
    if (!process.env.BENCH_KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
  });
  const start = Date.parse('2026-10-01T04:00:00Z');
  const end = Date.parse('2026-11-01T04:00:00Z');

  const engine = await openEngine({ dataDir });
  const { tenantId, rnc } = await seedBenchIssuer(engine, { rangeTo: 1000 });
  await issueEcf(engine, tenantId, { idempotencyKey: 'bench-31', payload });
  const rangeId = (await engine.db.selectFrom('sequence_ranges').select('id').where('tenant_id', '=', tenantId).where('type', '=', 31).executeTakeFirstOrThrow()).id;
  await engine.db.deleteFrom('events').execute();
  await engine.db.deleteFrom('journal').execute();
  await engine.db.deleteFrom('ecf_documents').execute();
  await engine.db.deleteFrom('ecf').execute();
  const pool = documentPool();
  const certificates = await keepCertificates(engine.db, pool.slice(0, 50).map((d) => d.xml));
  const rows = { rows: ROWS, tenantId, tenantKey: await tenantKey(engine.db, tenantId), rnc, documents: true, rangeId, start, end };
  await engine.close();
  const loaded = await bulkLoadInChild({ dataDir, rows, poolFile: poolFile(pool.length, POOL_SEED), certificates });
  console.log(`store: ${ROWS.toLocaleString('en')} e-CF of October 2026 on SQLite, each its own signed document; loaded in ${loaded.seconds.toFixed(1)} s`);

  const file = join(dataDir, 'octubre.zip');
  const exported = measured('export', dataDir, file);
  const bytes = statSync(file).size;
  const issued = Number(exported.issued);
  console.log(
    `export: ${issued.toLocaleString('en')} production e-CF in ${exported.seconds.toFixed(1)} s (process start included), ${Math.round(issued / exported.seconds).toLocaleString('en')} e-CF/s, peak RSS ${Math.round(exported.peakRssMiB)} MB` +
      ` (sampled at the peak, MiB: ${JSON.stringify(exported.memory)})` +
      ` (target <= 300 MB: ${exported.peakRssMiB <= 300 ? 'ok' : 'MISSED'}); ZIP ${(bytes / 2 ** 20).toFixed(1)} MiB, ${Math.round(bytes / issued).toLocaleString('en')} bytes per e-CF, ${String(exported.files)} files`,
  );
  const verified = measured('verify', dataDir, file);
  console.log(
    `verify: ${verified.seconds.toFixed(1)} s, ${Math.round(issued / verified.seconds).toLocaleString('en')} e-CF/s, peak RSS ${Math.round(verified.peakRssMiB)} MB (sampled at the peak, MiB: ${JSON.stringify(verified.memory)}), ` +
      `${String(verified.signatures)} signatures checked, ${verified.ok ? 'the export holds' : `FAILED: ${JSON.stringify(verified.problems)}`}; export/verify time ratio ${(exported.seconds / verified.seconds).toFixed(2)}`,
  );
  if (process.env.BENCH_KEEP_DIR) console.log(`kept: ${dataDir}`);
  if (!verified.ok) process.exitCode = 1;
}
