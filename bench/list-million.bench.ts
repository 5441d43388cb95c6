// Queries over a big store: one tenant with BENCH_ROWS e-CF (default 1,000,000) spread over
// a year, each with a real signed document in ecf_documents (one type-31 and one type-32
// e-CF signed by the appliance, their bytes reused for every row, so bytes on disk are
// realistic). Prints, through the engine functions (listEcf, getEcf, ecfXml; the HTTP layer
// is not included), p50/p99 of 200 calls per query against the target p99 <= 10 ms, the
// bytes on disk per e-CF and how long the load took.
// The rows are written by a second better-sqlite3 connection on the engine's own file
// (prepared statements, 10,000 rows per transaction, journal_mode and synchronous OFF during the
// load unless BENCH_LOAD_JOURNAL / BENCH_LOAD_SYNC say otherwise; WAL again afterwards); a freshly
// opened engine answers the queries, as after a restart. BENCH_KEEP_DIR=1 keeps the data dir.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import { issueEcf } from '../src/engine/ecf/issue.js';
import { ecfXml, getEcf, listEcf } from '../src/engine/ecf/queries.js';
import { searchKey } from '../src/engine/ecf/search-key.js';
import { addRange } from '../src/engine/sequences/ranges.js';
import { payload } from './documents.js';
import { seedBenchIssuer } from './seed.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const BATCH = 10_000;
const CALLS = 200;
const TARGET_MS = 10;
/** A query gets at most this long in all (and at least 5 calls), so one slow query cannot take many minutes. */
const BUDGET_MS_PER_QUERY = 15_000;

const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-list-'));
// A million signed documents are gigabytes: the directory goes away however the run ends.
process.on('exit', () => {
  if (!process.env.BENCH_KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));
const engine = await openEngine({ dataDir });
const { tenantId, rnc } = await seedBenchIssuer(engine, { rangeTo: 1000 });
await addRange(engine, { tenantId, environment: 'test', type: 32, rangeFrom: 1, rangeTo: 1000, expiresOn: null });

// ---- two real documents, signed by the appliance ----
const signed31 = await issueEcf(engine, tenantId, { idempotencyKey: 'bench-31', payload });
const payload32 = { ...payload, type: 32, payment: { condition: '1', methods: [{ type: '1', amount: '100.00' }] }, buyer: undefined };
const signed32 = await issueEcf(engine, tenantId, { idempotencyKey: 'bench-32', payload: payload32 });
const xml31 = (await ecfXml(engine, tenantId, signed31.ecf.id)).bytes;
const xml32 = (await ecfXml(engine, tenantId, signed32.ecf.id)).bytes;
const rfce32 = (await ecfXml(engine, tenantId, signed32.ecf.id, true)).bytes;
const qrBase = signed31.ecf.qrUrl.split('?')[0]!;
const rangeId = (await engine.db.selectFrom('sequence_ranges').select('id').where('tenant_id', '=', tenantId).where('type', '=', 31).executeTakeFirstOrThrow()).id;
await engine.db.deleteFrom('events').execute();
await engine.db.deleteFrom('ecf_documents').execute();
await engine.db.deleteFrom('ecf').execute();

// ---- the rows ----
/** A small deterministic generator, so two runs load the same shape. */
let seed = 0x2545f491;
const rnd = (): number => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const pick = <T>(weighted: readonly (readonly [T, number])[]): T => {
  let r = rnd();
  for (const [v, w] of weighted) if ((r -= w) < 0) return v;
  return weighted[weighted.length - 1]![0];
};
const TYPES = [[31, 0.45], [32, 0.4], [34, 0.04], [33, 0.02], [41, 0.02], [43, 0.02], [44, 0.01], [45, 0.02], [46, 0.01], [47, 0.01]] as const;
const STATUSES = [['accepted', 0.85], ['signed', 0.05], ['accepted_conditional', 0.04], ['rejected', 0.03], ['failed', 0.02], ['review', 0.01]] as const;
const ENVIRONMENTS = [['production', 0.92], ['test', 0.06], ['cert', 0.02]] as const;
const FIRST = ['Constructora', 'Ferretería', 'Distribuidora', 'Inversiones', 'Comercial', 'Servicios', 'Agroindustrial', 'Farmacia', 'Colmado', 'Importadora'];
const SECOND = ['del Caribe', 'Quisqueya', 'Ozama', 'Cibao', 'Las Américas', 'Ñoño', 'Duarte', 'del Este', 'Santo Domingo', 'Bávaro'];
const BUYERS = Array.from({ length: 20_000 }, (_, i) => ({
  rnc: String(100_000_000 + ((i * 7919) % 900_000_000)).slice(0, 9),
  name: `${FIRST[i % 10]} ${SECOND[Math.floor(i / 10) % 10]} ${i} SRL`,
}));

const end = Date.parse('2026-11-01T00:00:00Z');
const start = end - 365 * 86_400_000;
const counters = new Map<string, number>();
const sampleIds: string[] = [];
const encfs: string[] = [];
let documentBytes = 0;

function row(i: number) {
  const issuedMs = start + Math.floor(((i + rnd()) / ROWS) * (end - start));
  const issuedAt = new Date(issuedMs).toISOString();
  const issueDate = new Date(issuedMs - 4 * 3_600_000).toISOString().slice(0, 10);
  const type = pick(TYPES);
  const environment = pick(ENVIRONMENTS);
  const status = pick(STATUSES);
  const counterKey = `${environment}${type}`;
  const seq = (counters.get(counterKey) ?? 0) + 1;
  counters.set(counterKey, seq);
  const encf = `E${type}${String(seq).padStart(10, '0')}`;
  const cents = Math.round(Math.exp(Math.log(5_000) + rnd() * (Math.log(200_000_000) - Math.log(5_000))));
  const monto = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  const buyer = type === 32 && cents < 25_000_000 && rnd() < 0.7 ? null : BUYERS[Math.floor(rnd() * BUYERS.length)]!;
  const rfce = type === 32 && cents < 25_000_000;
  const hex = randomBytes(96).toString('hex');
  const id = randomUUID();
  const securityCode = hex.slice(0, 6).toUpperCase();
  const done = status !== 'signed';
  const at = (s: number) => new Date(issuedMs + s * 1000).toISOString();
  if (sampleIds.length < 5000 && rnd() < 5000 / ROWS) sampleIds.push(id);
  if (encfs.length < 5000 && rnd() < 5000 / ROWS) encfs.push(encf);
  return {
    values: [
      id, tenantId, environment, type, encf, status, type === 32 || type === 34 ? null : '2027-12-31', issueDate, issuedAt, issuedAt, securityCode,
      `${qrBase}?RncEmisor=${rnc}${buyer ? `&RncComprador=${buyer.rnc}` : ''}&ENCF=${encf}&FechaEmision=${issueDate.split('-').reverse().join('-')}&MontoTotal=${monto}&CodigoSeguridad=${securityCode}`,
      rfce ? 1 : 0, rnd() < 0.6 ? `FAC-${String(i + 1).padStart(8, '0')}` : null, null, 0, monto, cents, buyer?.rnc ?? null, buyer?.name ?? null, buyer ? searchKey(buyer.name) : null,
      hex.slice(0, 64), randomUUID(), hex.slice(64, 128), hex.slice(128, 192), rangeId,
      done ? JSON.stringify({ trackId: randomUUID(), status: status === 'rejected' ? 'Rechazado' : 'Aceptado', statusCode: status === 'rejected' ? 2 : 1, sequenceUsed: true, messages: [], submittedAt: at(2), receivedAt: at(3), processedAt: at(9) }) : null,
      status === 'failed' ? JSON.stringify({ count: 3, max: 3, nextAttemptAt: null }) : null,
      done ? at(9) : null,
    ],
    document: [id, type === 32 ? xml32 : xml31, rfce ? rfce32 : null] as const,
    documentBytes: (type === 32 ? xml32 : xml31).length + (rfce ? rfce32.length : 0),
  };
}

// The bulk load runs with the engine closed, so the loader may leave WAL for the load (the signed
// bytes are written once instead of twice: WAL, then checkpoint) and put WAL back afterwards.
await engine.close();
const loader = new SQLite(join(dataDir, DATABASE_FILE));
const journal = process.env.BENCH_LOAD_JOURNAL ?? 'OFF';
loader.pragma(`journal_mode = ${journal}`);
loader.pragma(`synchronous = ${process.env.BENCH_LOAD_SYNC ?? 'OFF'}`);
loader.pragma('foreign_keys = ON');
loader.pragma('cache_size = -262144'); // 256 MB for the bulk load only; the engine's connection keeps its defaults
const insertEcf = loader.prepare(`insert into ecf (id, tenant_id, environment, type, encf, status, sequence_expires_on, issue_date, issued_at, signed_at,
  security_code, qr_url, submits_rfce, internal_number, tolerance_warning, signed_during_contingency, monto_total, monto_total_cents, buyer_rnc, buyer_name, buyer_name_key,
  document_hash, idempotency_key, request_hash, fingerprint, sequence_range_id, taxauth, retry, updated_at) values (${Array(29).fill('?').join(', ')})`);
const insertDocument = loader.prepare('insert into ecf_documents (ecf_id, xml, rfce_xml) values (?, ?, ?)');
const batch = loader.transaction((from: number, to: number) => {
  for (let i = from; i < to; i++) {
    const r = row(i);
    insertEcf.run(r.values);
    insertDocument.run(r.document);
    documentBytes += r.documentBytes;
  }
});

console.log(`rows: ${ROWS.toLocaleString('en')} e-CF, one tenant, ${new Date(start).toISOString().slice(0, 10)} to ${new Date(end).toISOString().slice(0, 10)}; document bytes: e-CF 31 ${xml31.length}, e-CF 32 ${xml32.length} + RFCE ${rfce32.length}`);
const loadStart = performance.now();
for (let from = 0; from < ROWS; from += BATCH) {
  batch(from, Math.min(from + BATCH, ROWS));
  if (process.stdout.isTTY && (from / BATCH) % 10 === 9) process.stdout.write(`\r  ${(from + BATCH).toLocaleString('en')} rows, ${((performance.now() - loadStart) / 1000).toFixed(0)} s`);
}
const loadSeconds = (performance.now() - loadStart) / 1000;
if (process.stdout.isTTY) process.stdout.write('\r');
loader.pragma('journal_mode = WAL');
loader.close();
console.log(
  `insert: ${loadSeconds.toFixed(1)} s (${Math.round(ROWS / loadSeconds).toLocaleString('en')} rows/s, ${BATCH.toLocaleString('en')} per transaction, 11 indexes on ecf;` +
    ` loader journal_mode ${journal}, synchronous ${process.env.BENCH_LOAD_SYNC ?? 'OFF'})`,
);
const queries = await openEngine({ dataDir });

const size = (f: string) => {
  try {
    return statSync(join(dataDir, f)).size;
  } catch {
    return 0;
  }
};
const dbBytes = size(DATABASE_FILE);
const walBytes = size(`${DATABASE_FILE}-wal`);
console.log(
  `on disk: ecf.sqlite ${(dbBytes / 2 ** 20).toFixed(0)} MiB + wal ${(walBytes / 2 ** 20).toFixed(0)} MiB = ${Math.round((dbBytes + walBytes) / ROWS).toLocaleString('en')} bytes per e-CF` +
    ` (of which signed XML, RFCE included: ${Math.round(documentBytes / ROWS).toLocaleString('en')})`,
);

// ---- the queries ----
const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const any = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const typesPresent = TYPES.map(([t]) => t);

async function time(label: string, call: () => Promise<unknown>): Promise<void> {
  const w = performance.now();
  await call();
  if ((performance.now() - w) * CALLS < BUDGET_MS_PER_QUERY) for (let i = 0; i < 4; i++) await call();
  const ms: number[] = [];
  const deadline = performance.now() + BUDGET_MS_PER_QUERY;
  while (ms.length < CALLS && (ms.length < 5 || performance.now() < deadline)) {
    const t = performance.now();
    await call();
    ms.push(performance.now() - t);
  }
  const calls = ms.length;
  ms.sort((a, b) => a - b);
  const p99 = percentile(ms, 99);
  console.log(
    `${label.padEnd(44)} p50 ${percentile(ms, 50).toFixed(2).padStart(8)} ms   p99 ${p99.toFixed(2).padStart(8)} ms   (target p99 <= ${TARGET_MS} ms: ${p99 <= TARGET_MS ? 'ok' : 'MISSED'})${calls < CALLS ? `, ${calls} calls (slow)` : ''}`,
  );
}

console.log(`engine functions, up to ${CALLS} calls each (HTTP not included):`);
await time('list: default (page 1, 20)', () => listEcf(queries, tenantId, {}));
await time('list: Type filter', () => listEcf(queries, tenantId, { Type: any(typesPresent) }));
await time('list: Search e-NCF prefix (9-13 chars)', () => {
  const encf = any(encfs);
  return listEcf(queries, tenantId, { Search: encf.slice(0, 9 + Math.floor(Math.random() * 5)) });
});
await time('list: MinAmount + Sort montoTotal', () => listEcf(queries, tenantId, { MinAmount: String(Math.round(Math.exp(Math.log(100) + Math.random() * Math.log(10_000)))), Sort: 'montoTotal' }));
await time('list: deep page (Page 500)', () => listEcf(queries, tenantId, { Page: 500 }));
await time('getEcf by id', () => getEcf(queries, tenantId, any(sampleIds)));
await time('ecfXml by id', () => ecfXml(queries, tenantId, any(sampleIds)));

await queries.close();
if (process.env.BENCH_KEEP_DIR) console.log(`data dir kept: ${dataDir}`);
