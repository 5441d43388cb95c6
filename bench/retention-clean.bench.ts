// The store-clean job on a store with a backlog of what is not a record, while another
// connection writes: BENCH_CLEAN_ROWS old events (default 200,000), each with a delivered webhook
// delivery 60 days old, plus a tenth as many recent ones that must stay. The job runs as
// `ecf serve` runs it (bree, a worker thread with its own connection, the real clock) while this
// thread commits a small write transaction (an event) every 5 ms on its own engine, as issuing
// would. Prints the job's rate (rows removed per second) and the writer's latency
// p50/p99/max before and during the run: the batches (200 rows, then a pause at least as long
// as the batch took) keep SQLite's one write lock short, so the writer is never queued behind
// the whole run. Ids as the appliance makes them (UUIDv7 rows, random event ids).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import { emit } from '../src/engine/events/outbox.js';
import { inTransaction } from '../src/engine/store/database.js';
import { newEventId, newId } from '../src/engine/ids.js';
import { DEFAULT_JOBS, startScheduler } from '../src/jobs/scheduler.js';
import { figure } from './figures.js';
import { percentile } from './http-load.js';

const OLD = Number(process.env.BENCH_CLEAN_ROWS ?? 200_000);
const RECENT = Math.ceil(OLD / 10);
const BATCH = 10_000;
const DAY = 24 * 60 * 60 * 1000;

const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-clean-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
process.on('SIGINT', () => process.exit(130));

// ---- the backlog (not timed): rows written straight into the engine's file
const setup = await openEngine({ dataDir });
const tenantId = randomUUID();
const endpointId = randomUUID();
await setup.close();
const raw = new SQLite(join(dataDir, DATABASE_FILE));
const stamp = (ms: number) => new Date(ms).toISOString();
const now = Date.now();
raw.prepare(`insert into tenants (id, rnc, legal_name, default_environment, created_at, store_key) values (?, '131234567', 'Bench SRL', 'test', ?, 1)`).run(tenantId, stamp(now));
raw
  .prepare(`insert into webhook_endpoints (id, tenant_id, url, events, enabled, consecutive_failures, secret_store, secret_ref, created_at) values (?, ?, 'https://erp.example/hooks', '["*"]', 1, 0, 'file', 'bench', ?)`)
  .run(endpointId, tenantId, stamp(now));
const event = raw.prepare(`insert into events (id, tenant_id, type, api_version, created_at, data) values (?, ?, 'ecf.accepted', 1, ?, ?)`);
const delivery = raw.prepare(
  `insert into webhook_deliveries (id, endpoint_id, tenant_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at) values (?, ?, ?, ?, 'ecf.accepted', 'delivered', 1, ?, ?, ?)`,
);
const load = performance.now();
for (let done = 0; done < OLD + RECENT; ) {
  raw.transaction(() => {
    for (let i = 0; i < BATCH && done < OLD + RECENT; i++, done++) {
      const at = stamp(done < OLD ? now - 60 * DAY + done : now - DAY + done);
      const id = newEventId();
      event.run(id, tenantId, at, JSON.stringify({ object: { encf: `E31${String(done).padStart(10, '0')}`, status: 'accepted' } }));
      delivery.run(newId(), endpointId, tenantId, id, at, at, at);
    }
  })();
}
raw.pragma('wal_checkpoint(TRUNCATE)');
raw.close();
const size = () => statSync(join(dataDir, DATABASE_FILE)).size;
console.log(`backlog: ${OLD} old and ${RECENT} recent events, each with a delivered delivery, loaded in ${((performance.now() - load) / 1000).toFixed(1)} s (${(size() / 1e6).toFixed(0)} MB; not timed)`);

// ---- a writer on its own connection: small transactions one after another, timed
const writer = await openEngine({ dataDir });
const latencies: number[] = [];
/** One write every WRITE_EVERY_MS (200 a second, a busy till's peak many times over): a writer with no gap at all would starve any other. */
const WRITE_EVERY_MS = 5;
const write = async () => {
  const t = performance.now();
  await inTransaction(writer.db, (tx) => emit(tx, new Date(), null, 'ecf.accepted', { bench: true }));
  latencies.push(performance.now() - t);
  await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS));
};
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const summary = (xs: number[]) => `p50 ${percentile(sorted(xs), 50).toFixed(2)} ms, p99 ${percentile(sorted(xs), 99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(1)} ms over ${xs.length} writes`;

const quietUntil = performance.now() + 3000;
while (performance.now() < quietUntil) await write();
const quiet = latencies.splice(0);
console.log(`writer alone:              ${summary(quiet)}`);

let result: { removed: number; rules: Record<string, number> } | undefined;
const started = performance.now();
const scheduler = await startScheduler({
  dataDir,
  jobs: DEFAULT_JOBS.filter((j) => j.name === 'store-clean').map((j) => ({ ...j, firstRunAfterMs: 0 })),
  onMessage: (_job, m) => {
    if (typeof m === 'object' && m !== null && 'summary' in m) result = (m as { summary: typeof result }).summary;
  },
  onError: (_job, e) => {
    console.error(e);
    process.exit(1);
  },
});
while (!result) await write();
const seconds = (performance.now() - started) / 1000;
await scheduler.stop();
const during = latencies.splice(0);
console.log(`writer while cleaning:     ${summary(during)}`);
const remaining = {
  events: Number((await writer.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
  deliveries: Number((await writer.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
};
await writer.close();
const rate = result.removed / seconds;
console.log(`store-clean: removed ${result.removed} rows (${JSON.stringify(result.rules)}) in ${seconds.toFixed(1)} s, ${rate.toFixed(0)} rows/s; left ${remaining.deliveries} deliveries and ${remaining.events} events (the recent ones and the writer's)`);
if (result.removed !== 2 * OLD || remaining.deliveries !== RECENT) {
  console.error(`expected ${2 * OLD} rows removed and ${RECENT} deliveries left`);
  process.exit(1);
}
console.log(`writer p99 while cleaning / alone: ${(percentile(sorted(during), 99) / percentile(sorted(quiet), 99)).toFixed(2)}`);
figure('store-clean rows per second', rate, 'rows/s', 'higher');
