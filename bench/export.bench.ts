// The period export (docs/record.md): one tenant with BENCH_EXPORT_ROWS e-CF (default 2,000)
// issued in one month (October 2026), each its own signed document drawn from the pool of 10,000
// distinct documents with the row's e-NCF written in (bench/corpus/pool.ts, loaded as
// bench/list-million.bench.ts loads its store), exported with the built `ecf export` (dist/bundle:
// run `npm run build` first), then checked with `ecf export verify` (the documents' own signatures
// too; BENCH_EXPORT_SIGNATURES=0 leaves them out). Each runs in a process of its own, as a person
// runs it, so its peak RSS (every thread's) is its own.
//
// BENCH_EXPORT_NODE_FLAGS: Node flags for the two measured commands (none unless given).
// Prints: e-CF per second and peak RSS of the export (target <= 300 MB at 1,000,000) and of the
// verification, the ZIP's size per e-CF. BENCH_KEEP_DIR=1 keeps the data dir and the ZIP.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Node flags of the measured commands (none by default, as `ecf export` runs).
const NODE_FLAGS = (process.env.BENCH_EXPORT_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(root, 'bin', 'ecf.js');
// Writes the process's peak RSS (every thread's) where BENCH_RSS_FILE says, as the process exits.
const RSS_ON_EXIT = `data:text/javascript,${encodeURIComponent("import { writeFileSync } from 'node:fs'; process.on('exit', () => writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));")}`;

if (!existsSync(join(root, 'dist', 'bundle', 'ecf.js'))) {
  console.log('the bundle is missing; run `npm run build` first (skipped)');
  process.exit(0);
}
await main();

/** One built `ecf` command in a process of its own, as a person runs it: its seconds, peak RSS (MiB) and --json answer. */
function measured(args: string[], dataDir: string): { seconds: number; peakRssMiB: number; json: Record<string, unknown> } {
  const rssFile = join(dataDir, 'peak-rss');
  const began = performance.now();
  const r = spawnSync(process.execPath, [...NODE_FLAGS, '--import', RSS_ON_EXIT, BIN, ...args, '--json'], {
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26, env: { ...process.env, BENCH_RSS_FILE: rssFile },
  });
  const seconds = (performance.now() - began) / 1000;
  if (r.status !== 0 && !(args[1] === 'verify' && r.status === 1)) throw new Error(`ecf ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return { seconds, peakRssMiB: Number(readFileSync(rssFile, 'utf8')) / 1024, json: JSON.parse(r.stdout) as Record<string, unknown> };
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
  // The production e-CF (92 % of the loaded rows; bench/ecf-rows.ts spreads them over the three environments).
  const exported = measured(['export', '--tenant', tenantId, '--month', '2026-10', '--env', 'production', '-o', file, '--data-dir', dataDir], dataDir);
  const bytes = statSync(file).size;
  const issued = Number(exported.json.issued);
  console.log(
    `export (ecf export): ${issued.toLocaleString('en')} production e-CF in ${exported.seconds.toFixed(1)} s (process start included), ${Math.round(issued / exported.seconds).toLocaleString('en')} e-CF/s, peak RSS ${Math.round(exported.peakRssMiB)} MB` +
      ` (target <= 300 MB: ${exported.peakRssMiB <= 300 ? 'ok' : 'MISSED'}); ZIP ${(bytes / 2 ** 20).toFixed(1)} MiB, ${Math.round(bytes / issued).toLocaleString('en')} bytes per e-CF, ${String(exported.json.files)} files`,
  );
  const verifyArgs = ['export', 'verify', file, ...(process.env.BENCH_EXPORT_SIGNATURES === '0' ? ['--skip-signatures'] : [])];
  const verified = measured(verifyArgs, dataDir);
  const ok = verified.json.ok === true;
  console.log(
    `verify (ecf export verify): ${verified.seconds.toFixed(1)} s, ${Math.round(issued / verified.seconds).toLocaleString('en')} e-CF/s, peak RSS ${Math.round(verified.peakRssMiB)} MB, ` +
      `${String(verified.json.signaturesChecked)} signatures checked, ${ok ? 'the export holds' : `FAILED: ${JSON.stringify((verified.json.problems as unknown[]).slice(0, 5))}`}; export/verify time ratio ${(exported.seconds / verified.seconds).toFixed(2)}`,
  );
  if (process.env.BENCH_KEEP_DIR) console.log(`kept: ${dataDir}`);
  if (!ok) process.exitCode = 1;
}
