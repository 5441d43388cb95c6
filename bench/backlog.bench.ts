// Fairness and memory under a month-end backlog, on the real server: tenant A has BENCH_BACKLOG
// e-CF (default 10,000) waiting to be submitted when the built `ecf serve` starts; while its job
// thread drains them through the sandbox at 300 ms per request (BENCH_LATENCY_MS), tenant B
// issues one e-CF at a time over HTTP, half a second after the previous one's verdict, and the
// bench measures each one's time from the POST's answer to its verdict (GET /ecf/{id} every 50 ms). Prints B's p50/p99/max, A's
// drain rate, and the server's peak RSS (VmHWM, every thread of the process) against the
// 250 MB target. The sandbox runs in a process of its own. Needs `npm run build` first.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { request } from 'undici';
import { startServe } from '../test/serve-process.js';
import { payload } from './documents.js';
import { percentile } from './http-load.js';
import { startSandboxChild } from './sandbox-child.js';
import { distModules, isBuilt, seedBenchIssuer } from './seed.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 300);
const B_EVERY_MS = 500;
const B_COUNT = Number(process.env.BENCH_B_COUNT ?? 60);
const FINAL = new Set(['accepted', 'accepted_conditional', 'rejected', 'review', 'failed']);

if (!isBuilt(root)) {
  console.log('dist/ is missing; run `npm run build` first (skipped)');
  process.exit(0);
}

const modules = await distModules(root);
const { issueEcf } = (await import(pathToFileURL(join(root, 'dist', 'engine', 'ecf', 'issue.js')).href)) as typeof import('../src/engine/ecf/issue.js');
const sandbox = await startSandboxChild(LATENCY_MS > 0 ? { latency: { all: { delayMs: LATENCY_MS } } } : undefined);
const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-backlog-'));
let serve: Awaited<ReturnType<typeof startServe>> | undefined;
try {
  // ---- the backlog (not timed): A's e-CF issued in this process, before the server starts
  const engine = await modules.openEngine({ dataDir });
  await modules.setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
  await modules.setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
  const a = await seedBenchIssuer(engine, { rangeTo: BACKLOG + 10, rnc: '131234567' }, modules);
  const b = await seedBenchIssuer(engine, { rangeTo: 1000, rnc: '131234568' }, modules);
  await modules.setSetting(engine, 'duplicates.mode', 'off', a.tenantId);
  await modules.setSetting(engine, 'duplicates.mode', 'off', b.tenantId);
  const seeding = performance.now();
  for (let i = 0; i < BACKLOG; i++) {
    const body = { ...payload, payment: { condition: '1' }, lines: [{ ...payload.lines[0]!, name: `backlog #${i}` }, ...payload.lines.slice(1)] };
    await issueEcf(engine, a.tenantId, { idempotencyKey: `a-${i}`, payload: body });
  }
  console.log(`backlog: ${BACKLOG} e-CF of tenant A issued in ${((performance.now() - seeding) / 1000).toFixed(0)} s (not timed)`);
  await engine.close();

  // ---- the server drains A while B issues
  serve = await startServe(dataDir, { logLevel: 'error', env: { ...process.env, ECF_DATABASE_URL: '' } });
  const started = performance.now();
  const pid = serve.child.pid!;
  const status = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  const headers = (key: string) => ({ 'x-api-key': key, 'content-type': 'application/json' });
  // The server's RSS every half second: the peak, and where it sits most of the time.
  const rssSamples: number[] = [];
  const sampler = setInterval(() => {
    const rss = status('VmRSS');
    if (Number.isFinite(rss)) rssSamples.push(rss);
  }, 500);
  const verdictTimes: number[] = [];
  for (let i = 0; i < B_COUNT; i++) {
    const body = JSON.stringify({ ...payload, payment: { condition: '1' }, lines: [{ ...payload.lines[0]!, name: `tenant B #${i}` }, ...payload.lines.slice(1)] });
    const answer = await request(`${serve.base}/api/v1/ecf`, { method: 'POST', headers: { ...headers(b.key), 'idempotency-key': `b-${i}` }, body });
    const created = (await answer.body.json()) as { id?: string };
    if (answer.statusCode !== 201 || !created.id) throw new Error(`POST /ecf answered ${answer.statusCode}: ${JSON.stringify(created)}`);
    const issuedAt = performance.now();
    for (;;) {
      const r = await request(`${serve.base}/api/v1/ecf/${created.id}`, { headers: headers(b.key) });
      const view = (await r.body.json()) as { status: string };
      if (FINAL.has(view.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    verdictTimes.push(performance.now() - issuedAt);
    await new Promise((resolve) => setTimeout(resolve, B_EVERY_MS));
  }
  const duringB = (performance.now() - started) / 1000;

  // ---- the rest of A's backlog, for the drain rate and the peak memory
  const check = await modules.openEngine({ dataDir });
  let left = BACKLOG;
  while (left > 0) {
    const row = await check.db.selectFrom('ecf').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', a.tenantId)).where('status', 'not in', [...FINAL]).executeTakeFirstOrThrow();
    left = Number(row.n);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const drained = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await check.close();
  const peak = status('VmHWM');
  const sorted = [...verdictTimes].sort((x, y) => x - y);
  console.log(
    `tenant B's new e-CF, ${B_COUNT} over ${duringB.toFixed(0)} s while A's backlog of ${BACKLOG} drained at ${LATENCY_MS} ms per request: ` +
      `time to verdict p50 ${(percentile(sorted, 50) / 1000).toFixed(2)} s, p99 ${(percentile(sorted, 99) / 1000).toFixed(2)} s, max ${(sorted.at(-1)! / 1000).toFixed(2)} s (target p99 ≤ 5 s)`,
  );
  console.log(`tenant A's backlog: ${BACKLOG} e-CF to their verdicts in ${drained.toFixed(0)} s, ${(BACKLOG / drained).toFixed(1)} e-CF/s with B's traffic beside it`);
  const rssSorted = [...rssSamples].sort((x, y) => x - y);
  console.log(
    `ecf serve's RSS while draining: peak ${peak.toFixed(0)} MB (target ≤ 250 MB); sampled every 0.5 s: median ${percentile(rssSorted, 50).toFixed(0)} MB, ` +
      `p90 ${percentile(rssSorted, 90).toFixed(0)} MB; by 20 s: ${rssSamples.filter((_, i) => i % 40 === 0).map((r) => r.toFixed(0)).join(' ')} MB`,
  );
} finally {
  serve?.child.kill('SIGTERM');
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
}
