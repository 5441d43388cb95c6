// `ecf audit verify` on a store with BENCH_AUDIT_ECF e-CF (default 200,000) and two journal entries
// each (ecf.issued with its digest, then ecf.status), as issuing and submission write them: every
// row its own (bench/ecf-rows.ts, drawn from the pool of distinct signed documents), the journal's
// links computed by the chain module (journal/chain.ts). Neither is timed. Then the verify, as the
// command runs it: the chain recomputed page by page, then the journal against the store through
// the packed index (journal/key-index.ts). Prints entries per second, the e-CF checked per second,
// and the process's peak RSS; BENCH_AUDIT_ECF=10000000 is the big run. BENCH_AUDIT_STORE=DIR keeps
// the store in DIR and verifies it again on the next run with the same DIR (building 2 million e-CF
// takes minutes; the verify is what is measured).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { openEngine } from '../src/engine/engine.js';
import { GENESIS, JOURNAL_KINDS, linkOf, nextHash, verifyAudit } from '../src/engine/journal/index.js';
import { documentPool } from './corpus/pool.js';
import { rowMaker } from './ecf-rows.js';
import { figure } from './figures.js';

const ECF = Number(process.env.BENCH_AUDIT_ECF ?? 200_000);
const BATCH = 10_000;

const kept = process.env.BENCH_AUDIT_STORE;
const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'ecf-bench-audit-'));
if (!kept) process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
process.on('SIGINT', () => process.exit(130));
// The store's size and journal length, written once it is complete.
const made = join(dataDir, 'bench-audit.json');
let seq = 0;
if (kept && existsSync(made)) {
  const was = JSON.parse(readFileSync(made, 'utf8')) as { ecf: number; entries: number };
  if (was.ecf !== ECF) throw new Error(`${dataDir} holds ${was.ecf} e-CF, not BENCH_AUDIT_ECF=${ECF}`);
  seq = was.entries;
  console.log(`store: ${ECF.toLocaleString('en')} e-CF, ${seq.toLocaleString('en')} journal entries, kept in ${dataDir}`);
} else {
  if (kept) mkdirSync(kept, { recursive: true });
  seq = await buildStore();
  writeFileSync(made, JSON.stringify({ ecf: ECF, entries: seq }));
}

// ---- the store (not timed)
async function buildStore(): Promise<number> {
  const setup = await openEngine({ dataDir });
  await setup.close();
  const tenantId = randomUUID();
  const tenantKey = 1;
  const raw = new SQLite(join(dataDir, DATABASE_FILE));
  raw.pragma('journal_mode = wal');
  raw.pragma('foreign_keys = off'); // the rows name a range the bench does not make
  raw.prepare(`insert into tenants (id, rnc, legal_name, default_environment, created_at, store_key) values (?, '131234567', 'Bench SRL', 'test', ?, ?)`).run(tenantId, new Date().toISOString(), tenantKey);
  const end = Date.now();
  const make = rowMaker({ rows: ECF, tenantId, tenantKey, rnc: '131234567', documents: false, rangeId: randomUUID(), pool: documentPool(), start: end - 365 * 86_400_000, end });
  let insertEcf: SQLite.Statement | undefined;
  const insertEntry = raw.prepare('insert into journal (tenant_key, seq, at, kind, ecf_key, ref, digest, data, link) values (?, ?, ?, ?, ?, null, ?, ?, ?)');
  let hash = GENESIS;
  let seq = 0;
  const loadStarted = performance.now();
  const entry = (at: number, kind: number, ecfKey: number, digest: Buffer | null, data: string | null) => {
    seq++;
    hash = nextHash(hash, { tenantKey, seq, at, kind, ecfKey, ref: null, digest, data });
    insertEntry.run(tenantKey, seq, at, kind, ecfKey, digest, data, linkOf(hash));
  };
  for (let from = 0; from < ECF; from += BATCH) {
    raw.transaction(() => {
      for (let i = from; i < Math.min(ECF, from + BATCH); i++) {
        const { ecf } = make(i);
        insertEcf ??= raw.prepare(`insert into ecf (${Object.keys(ecf).join(', ')}) values (${Object.keys(ecf).map(() => '?').join(', ')})`);
        insertEcf.run(...Object.values(ecf));
        const at = ecf.issued_at as number;
        entry(at, JOURNAL_KINDS['ecf.issued'], ecf.store_key as number, Buffer.from(ecf.document_hash as string, 'hex'), null);
        entry(at + 9000, JOURNAL_KINDS['ecf.status'], ecf.store_key as number, null, `{"status":"${ecf.status as string}"}`);
      }
    })();
  }
  raw.prepare('insert into journal_heads (tenant_key, seq, hash) values (?, ?, ?)').run(tenantKey, seq, hash);
  raw.close();
  console.log(`store: ${ECF.toLocaleString('en')} e-CF, ${seq.toLocaleString('en')} journal entries, made in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
  return seq;
}

// ---- the verify (timed)
const engine = await openEngine({ dataDir });
const rssBefore = process.memoryUsage().rss;
const cpuBefore = process.cpuUsage();
const report = await verifyAudit(engine);
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
await engine.close();
const t = report.tenants[0]!;
if (t.problem || t.entries !== seq || t.ecf !== ECF) throw new Error(`the verify did not pass the clean store: ${JSON.stringify(t)}`);
const entriesPerSecond = report.entries / report.seconds;
const peakMiB = process.resourceUsage().maxRSS / 1024;
console.log(
  `audit verify: ${report.entries.toLocaleString('en')} entries and ${t.ecf.toLocaleString('en')} e-CF in ${report.seconds.toFixed(1)} s: ` +
    `${Math.round(entriesPerSecond).toLocaleString('en')} entries/s (target 100,000: ${(entriesPerSecond / 100_000).toFixed(2)}x), ` +
    `${Math.round(t.ecf / report.seconds).toLocaleString('en')} e-CF/s; ${cpuSeconds.toFixed(1)} s of CPU: ${Math.round(report.entries / cpuSeconds).toLocaleString('en')} entries per CPU second (what a machine whose cores are not shared gets); RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB before, peak ${peakMiB.toFixed(0)} MiB (the store's load included)`,
);
figure('audit verify entries/s', Math.round(entriesPerSecond), 'entries/s', 'higher');
figure('audit verify entries per CPU second', Math.round(report.entries / cpuSeconds), 'entries/s', 'higher');
