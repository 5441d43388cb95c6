// Submission throughput, as ratios measured in one run on this machine: the sandbox (the tax
// authority's stand-in, over loopback HTTP) and an engine in this one process; N e-CF 31 are issued
// first (not timed), then the queue is drained with runDueWork batches of 50 (timed) and the run
// prints e-CF submitted-and-accepted per second ÷ raw RSA-2048 signs per second. No pass/fail.
//
// The clock is a ManualClock that follows real time but jumps to the next due item whenever
// nothing is due (as test/engine/submission/harness.ts's drive does), so the status query ladder's waits
// (2 s first) do not slow the measurement. The only RSA private-key work in submission is signing
// the authentication seed (once per token); the sandbox verifies every document's signature
// (RSA public key) and validates it against the XSD in this same process, so its checks are
// measured on their own too. Environment: BENCH_N (default 500).
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../src/engine/clock.js';
import { openEngine } from '../src/engine/engine.js';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { readEcfXml } from '../src/engine/store/documents/index.js';
import { issueEcf } from '../src/engine/ecf/issue.js';
import { setSetting } from '../src/engine/settings/settings.js';
import { WORK_HANDLERS } from '../src/engine/work-handlers.js';
import { leaseOwnerName, pendingWork } from '../src/engine/work/queue.js';
import { runDueWork } from '../src/engine/work/run.js';
import { validateAgainstSchema } from '../src/engine/xml/xsd.js';
import { startSandbox } from '../src/sandbox/index.js';
import { parseXml, verifySignature } from '../src/sandbox/verify.js';
import { payload } from './documents.js';
import { seedBenchIssuer } from './seed.js';
import { rate } from './measure.js';
import { sqliteParts } from './store-sizes.js';

const N = Number(process.env.BENCH_N ?? 500);
const BATCH = 50;


const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const memory = () => ({ maxRssKb: process.resourceUsage().maxRSS, heapUsed: process.memoryUsage().heapUsed });

const atStart = memory();

// ---- engine and sandbox, one clock
const dataDir = mkdtempSync(join(tmpdir(), 'ecf-bench-submission-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
const clock = new ManualClock(new Date());
const sandbox = await startSandbox({ host: '127.0.0.1', clock });
const engine = await openEngine({ dataDir, clock });
await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
await setSetting(engine, 'taxauth.timeout_ms', 10_000);
const { tenantId } = await seedBenchIssuer(engine);
await setSetting(engine, 'duplicates.mode', 'off', tenantId);

// ---- N e-CF 31 (not timed): each a different sale, paid in cash
const issuedStart = performance.now();
const ids: string[] = [];
for (let i = 0; i < N; i++) {
  const body = { ...payload, payment: { condition: '1' }, lines: [{ ...payload.lines[0]!, name: `${payload.lines[0]!.name} #${i}` }, ...payload.lines.slice(1)] };
  ids.push((await issueEcf(engine, tenantId, { idempotencyKey: `bench-${i}`, payload: body })).ecf.id);
}
const issueSeconds = (performance.now() - issuedStart) / 1000;
// The signed bytes as the engine reads them back (documents are stored compressed).
const sampleRow = await engine.db.selectFrom('ecf_documents as d').innerJoin('ecf as e', 'e.store_key', 'd.ecf_key')
  .select(['e.id', 'e.encf', 'e.document_hash', 'd.xml', 'd.xml_sha256']).where('e.id', '=', ids[0]!).executeTakeFirstOrThrow();
const sample = (await readEcfXml(engine.documents, engine.db, sampleRow)).toString('utf8');

// ---- the drain (timed)
const before = memory();
const owner = leaseOwnerName('bench');
const cpuStart = process.cpuUsage();
const start = performance.now();
let skipped = 0;
let rounds = 0;
let jumps = 0;
for (;;) {
  // Follow real time, plus every jump made so far.
  clock.set(new Date(Math.max(clock.now().getTime(), Date.now() + skipped)));
  const done = await runDueWork(engine, { owner, handlers: WORK_HANDLERS, limit: BATCH });
  rounds++;
  if (done.length > 0) continue;
  const pending = await pendingWork(engine.db);
  if (pending.length === 0) break;
  const next = Math.min(...pending.map((p) => Date.parse(p.dueAt)));
  const ahead = next - clock.now().getTime();
  if (ahead > 0) {
    skipped += ahead;
    jumps++;
    clock.set(new Date(next));
  }
}
const seconds = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpuStart);
const after = memory();

// ---- raw RSA-2048, and the sandbox's checks of one document, on the idle process after the drain
// (after, so that their garbage does not count in the drain's memory)
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signedInfoSized = Buffer.alloc(800, 'a');
const signature = sign('sha256', signedInfoSized, privateKey);
const raw = rate(() => sign('sha256', signedInfoSized, privateKey));
const rawVerify = rate(() => verify('sha256', signedInfoSized, publicKey, signature));
const at = new Date(Date.now() + skipped);
const sandboxVerify = rate(() => {
  const parsed = parseXml(sample);
  const check = parsed.ok ? verifySignature(sample, parsed, at) : parsed;
  if (!check.ok) throw new Error(`the sample does not verify: ${check.reason}`);
});
const sandboxXsd = rate(() => {
  if (!validateAgainstSchema('ecf31', sample).valid) throw new Error('the sample is not valid');
}, 3, 400);

const statuses = await engine.db.selectFrom('ecf').select(['status']).execute();
const accepted = statuses.filter((s) => s.status === 'accepted').length;
const stats = sandbox.control.stats();
// The journal's cost over the whole life of an e-CF (issued, submitted, accepted): entries and bytes.
const journalEntries = Number((await engine.db.selectFrom('journal').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
await engine.close();
const store = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true });
const journalBytes = sqliteParts(store).filter((p) => p.name === 'journal' || p.kind === 'index on journal').reduce((sum, p) => sum + p.bytes, 0);
store.close();
await sandbox.close();
if (accepted !== N) throw new Error(`only ${accepted} of ${N} e-CF were accepted`);

const perSecond = accepted / seconds;
const fmt = (n: number) => n.toFixed(0).padStart(7);
console.log(`N = ${N} e-CF 31 (${Buffer.byteLength(sample)} bytes signed), issued in ${issueSeconds.toFixed(1)} s (not timed), drained in batches of ${BATCH}`);
console.log(`raw RSA-2048 sign                 ${fmt(raw)} /s`);
console.log(`raw RSA-2048 verify               ${fmt(rawVerify)} /s`);
console.log(`sandbox parse + signature verify  ${fmt(sandboxVerify)} /s   (per document received)`);
console.log(`sandbox XSD validation (e-CF 31)  ${fmt(sandboxXsd)} /s   (per document received)`);
console.log(
  `submitted and accepted            ${fmt(perSecond)} /s   ratio to raw sign ${(perSecond / raw).toFixed(3)}` +
    `   (${seconds.toFixed(2)} s, ${rounds} rounds, clock jumped ${jumps}× by ${skipped} ms; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s)`,
);
console.log(
  `sandbox: ${stats.receptions} receptions, ${stats.resultQueries} result queries, ${stats.tokensIssued} tokens (= seed signatures), ${stats.unauthorized} unauthorized; ` +
    `its checks alone would take ~${((accepted / sandboxVerify + accepted / sandboxXsd) / seconds * 100).toFixed(0)}% of the drain`,
);
console.log(`journal: ${journalEntries} entries for ${N} e-CF issued, submitted and accepted (${(journalEntries / N).toFixed(2)} per e-CF), ${Math.round(journalBytes / N)} bytes per e-CF on disk (table and indexes, SQLite pages in use)`);
console.log(`memory at start:         maxRSS ${atStart.maxRssKb} KB (${mb(atStart.maxRssKb * 1024)}), heap used ${mb(atStart.heapUsed)}`);
console.log(`memory before the drain: maxRSS ${before.maxRssKb} KB (${mb(before.maxRssKb * 1024)}), heap used ${mb(before.heapUsed)}`);
console.log(`memory after the drain:  maxRSS ${after.maxRssKb} KB (${mb(after.maxRssKb * 1024)}), heap used ${mb(after.heapUsed)}`);
