// Draining a backlog through the sandbox at the authority's real latency: N e-CF 31 are issued
// first (not timed), then the engine's work pump (what `ecf serve` runs in its job thread) submits
// them and follows their status queries until every one has its verdict. Prints e-CF per second
// from the first send to the last verdict, at 300 ms per request (BENCH_LATENCY_MS) and at none,
// with the default settings (taxauth.concurrency). The sandbox runs in a process of its own, as
// the authority is on a machine of its own. BENCH_N (default 2000). No pass/fail.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../src/engine/engine.js';
import type { Engine } from '../src/engine/engine-types.js';
import { issueEcf } from '../src/engine/ecf/issue.js';
import { setSetting } from '../src/engine/settings/settings.js';
import { runBackgroundWork } from '../src/engine/background-work.js';
import { payload } from './documents.js';
import { figure } from './figures.js';
import { startSandboxChild } from './sandbox-child.js';
import { seedBenchIssuer } from './seed.js';

const N = Number(process.env.BENCH_N ?? 2000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 300);
const FINAL = ['accepted', 'accepted_conditional', 'rejected', 'review', 'failed'];

async function drain(latencyMs: number): Promise<void> {
  const sandbox = await startSandboxChild(latencyMs > 0 ? { latency: { all: { delayMs: latencyMs } } } : undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-drain-'));
  let engine: Engine | undefined;
  try {
    engine = await openEngine({ dataDir });
    await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
    await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
    const { tenantId } = await seedBenchIssuer(engine);
    await setSetting(engine, 'duplicates.mode', 'off', tenantId);
    for (let i = 0; i < N; i++) {
      const body = { ...payload, payment: { condition: '1' }, lines: [{ ...payload.lines[0]!, name: `${payload.lines[0]!.name} #${i}` }, ...payload.lines.slice(1)] };
      await issueEcf(engine, tenantId, { idempotencyKey: `drain-${i}`, payload: body });
    }
    const e = engine;
    const stop = new AbortController();
    const started = performance.now();
    let lastVerdict = started;
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const watch = setInterval(async () => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      const left = await e.db.selectFrom('ecf').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'not in', FINAL).executeTakeFirstOrThrow();
      if (Number(left.n) === 0) stop.abort();
    }, 100);
    const stats = await runBackgroundWork(engine, {
      signal: stop.signal,
      onItem: () => void (lastVerdict = performance.now()),
    });
    clearInterval(watch);
    const seconds = (lastVerdict - started) / 1000;
    const statuses = await engine.db.selectFrom('ecf').select('status').select((eb) => eb.fn.countAll<number>().as('n')).groupBy('status').execute();
    const concurrency = 64;
    console.log(
      `drain of ${N} e-CF at ${latencyMs} ms per request: ${(N / seconds).toFixed(1)} e-CF/s (${seconds.toFixed(1)} s; ` +
        `${stats.performed} work items, ${stats.busy} busy answers; ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}; ` +
        `bound ${concurrency} per environment; engine RSS ${(rssBefore / 2 ** 20).toFixed(0)} → peak ${(peakRss / 2 ** 20).toFixed(0)} MB)`,
    );
    figure(`drain: ${N} e-CF at ${latencyMs} ms per request`, N / seconds, 'e-CF/s', 'higher');
    if (latencyMs > 0) {
      // What the latency alone allows: each e-CF needs a send and at least one status query.
      const ceiling = concurrency / ((2 * latencyMs) / 1000);
      console.log(`  ratio to the latency-bound ceiling (${concurrency} in flight ÷ 2 calls of ${latencyMs} ms = ${ceiling.toFixed(0)} e-CF/s): ${(N / seconds / ceiling).toFixed(2)}`);
    }
  } finally {
    await engine?.close();
    await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await drain(LATENCY_MS);
await drain(0);
