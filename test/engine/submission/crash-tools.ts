// What the crash tests share: the seeded random numbers behind the kills, the scenarios the sandbox
// is scripted with, the backlog they drain, the check of the records that come out, and a recording
// proxy in front of the sandbox that tells in what order the engine sent and asked.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server } from 'node:http';
import { basename, extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { FINAL_STATES } from '../../../src/engine/submission/rules.js';
import type { RunningSandbox, SandboxOutcome } from '../../../src/sandbox/index.js';
import { invoice31, seedIssuer } from '../../helpers.js';

export const FINAL_EVENTS = ['ecf.accepted', 'ecf.accepted_conditional', 'ecf.rejected', 'ecf.review', 'ecf.failed'];

/** mulberry32: small, seedable, good enough for kill delays. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** What the sandbox is told to do with one e-NCF, what the engine must end with, and how many receptions that takes. */
export interface Scenario {
  readonly name: string;
  readonly outcomes: SandboxOutcome[] | null;
  readonly expected: 'accepted' | 'accepted_conditional';
  /** Receptions the sandbox should see: one per send the engine legitimately makes. */
  readonly sends: number;
}

export const ECF_SCENARIOS: Scenario[] = [
  { name: 'plain', outcomes: null, expected: 'accepted', sends: 1 },
  // Received, then the connection dropped before the trackId came back.
  { name: 'lost', outcomes: [{ kind: 'lostResponse' }], expected: 'accepted', sends: 1 },
  { name: 'in-process', outcomes: [{ kind: 'inProcess', queries: 3, then: { kind: 'conditional' } }], expected: 'accepted_conditional', sends: 1 },
  // Transient rejection (9001): the engine resends the same XML by itself, the second one is slow.
  { name: 'transient', outcomes: [{ kind: 'transientReject' }, { kind: 'inProcess', queries: 2, then: { kind: 'accept' } }], expected: 'accepted', sends: 2 },
  // All three: in process, then a transient rejection, then the resend's answer is lost.
  { name: 'slow-transient-lost', outcomes: [{ kind: 'inProcess', queries: 2, then: { kind: 'transientReject' } }, { kind: 'lostResponse' }], expected: 'accepted', sends: 2 },
];

/** Type 32 under DOP 250,000: the RFCE, whose verdict comes in the answer to the send. */
const RFCE_TRANSIENT: Scenario = { name: 'rfce-transient', outcomes: [{ kind: 'transientReject' }, { kind: 'accept' }], expected: 'accepted', sends: 2 };
export const RFCE_SCENARIOS: Scenario[] = [
  RFCE_TRANSIENT,
  { name: 'rfce-plain', outcomes: null, expected: 'accepted', sends: 1 },
  RFCE_TRANSIENT,
  { name: 'rfce-lost', outcomes: [{ kind: 'lostResponse' }], expected: 'accepted', sends: 1 },
  RFCE_TRANSIENT,
  { name: 'rfce-conditional', outcomes: [{ kind: 'inProcess', queries: 0, then: { kind: 'conditional' } }], expected: 'accepted_conditional', sends: 1 },
];

export const consumer32 = () => ({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 2, unitPrice: '95.00' }] });

export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

export interface Issued {
  readonly id: string;
  readonly encf: string;
  readonly rfce: boolean;
  readonly scenario: Scenario;
}

export const realClock = (): Clock => ({ now: () => new Date() });

export interface BacklogOptions {
  readonly documents: number;
  /** The authority's base URL the engine is pointed at (the sandbox, or a proxy in front of it). */
  readonly authorityUrl: string;
  /** Due time of the i-th document's first send; absent, the moment it was issued. */
  readonly dueAt?: (index: number, base: number) => Date;
  readonly settings?: Readonly<Record<string, unknown>>;
}

/**
 * Issues the backlog on the real clock into a data dir and closes the engine: one tenant, one in
 * ten documents an RFCE, each scripted with its scenario at the sandbox.
 */
export async function issueBacklog(dataDir: string, sandbox: RunningSandbox, options: BacklogOptions): Promise<Issued[]> {
  const issued: Issued[] = [];
  const engine = await openEngine({ dataDir, clock: realClock() });
  try {
    await setSetting(engine, 'taxauth.url.test', `${options.authorityUrl}/testecf`);
    await setSetting(engine, 'taxauth.fc_url.test', `${options.authorityUrl}/testecf`);
    await setSetting(engine, 'taxauth.timeout_ms', 2000);
    for (const [key, value] of Object.entries(options.settings ?? {})) await setSetting(engine, key, value);
    const { tenant } = await seedIssuer(engine);
    await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
    let rfces = 0;
    for (let i = 0; i < options.documents; i++) {
      const rfce = i % 10 === 3; // one in ten
      const scenario = rfce ? RFCE_SCENARIOS[rfces++ % RFCE_SCENARIOS.length]! : ECF_SCENARIOS[i % ECF_SCENARIOS.length]!;
      const payload = rfce ? consumer32() : invoice31();
      const { ecf } = await issueEcf(engine, tenant.id, { idempotencyKey: `crash-${i}`, payload });
      if (ecf.submitsRfce !== rfce) throw new Error(`${ecf.encf}: submitsRfce ${ecf.submitsRfce}, expected ${rfce}`);
      if (scenario.outcomes) sandbox.control.script({ encf: ecf.encf, outcomes: scenario.outcomes });
      issued.push({ id: ecf.id, encf: ecf.encf, rfce, scenario });
    }
    const dueAt = options.dueAt;
    if (dueAt) {
      const base = Date.now();
      await inTransaction(engine.db, async (tx) => {
        for (const [i, doc] of issued.entries()) {
          await tx.updateTable('work').set({ due_at: dueAt(i, base).toISOString() }).where('ref', '=', doc.id).execute();
        }
      });
    }
  } finally {
    await engine.close();
  }
  return issued;
}

/**
 * What must hold of the records once every e-CF is final: the expected status, accepted at most
 * once, never sent again after the sandbox consumed it, no more receptions than the scenario
 * needs, one final event, one ecf.submitted per reception (e-CF), attempts numbered 1..n and the
 * last one matching the status. Returns the violations, one line each.
 */
export async function recordViolations(engine: Engine, sandbox: RunningSandbox, issued: readonly Issued[]): Promise<string[]> {
  const violations: string[] = [];
  const rows = new Map((await engine.db.selectFrom('ecf').select(['id', 'encf', 'status']).execute()).map((r) => [r.id, r]));
  const attempts = await engine.db
    .selectFrom('ecf_attempts')
    .innerJoin('ecf', 'ecf.store_key', 'ecf_attempts.ecf_key')
    .select(['ecf.id as ecf_id', 'attempt', 'outcome', 'status_code', 'messages', 'retry_decision', 'track_id'])
    .orderBy('ecf.id')
    .orderBy('attempt')
    .execute();
  const events = (await engine.db.selectFrom('events').select(['type', 'data']).where('type', 'like', 'ecf.%').orderBy('seq').execute()).map((e) => ({
    type: e.type,
    ecf_id: (JSON.parse(e.data) as { id: string }).id,
  }));
  const attemptsOf = groupBy(attempts, (a) => a.ecf_id);
  const eventsOf = groupBy(events, (e) => e.ecf_id);
  if (rows.size !== issued.length) violations.push(`${rows.size} e-CF stored, ${issued.length} issued`);

  for (const doc of issued) {
    const history = () =>
      `; sandbox: ${subs.map((x) => `${x.verdict.code}${x.verdict.messages.map((m) => `/${m.code}`).join('')}`).join(' ') || 'nothing'}` +
      `; attempts: ${(attemptsOf.get(doc.id) ?? []).map((a) => `${a.attempt}:${a.outcome}:${a.status_code ?? '-'}${a.retry_decision ? `:${a.retry_decision}` : ''}:${a.messages}`).join(' ') || 'none'}` +
      `; events: ${types.join(' ')}`;
    const where = `${doc.encf} (${doc.scenario.name})`;
    const row = rows.get(doc.id);
    const subs = sandbox.control.submissions({ encf: doc.encf });
    const types = (eventsOf.get(doc.id) ?? []).map((e) => e.type);
    if (!row) {
      violations.push(`${where}: not stored`);
      continue;
    }
    const accepted = subs.filter((s) => s.verdict.code === 1 || s.verdict.code === 4);
    const refusedAsUsed = subs.filter((s) => s.verdict.messages.some((m) => m.code === 1005));
    const numbers = (attemptsOf.get(doc.id) ?? []).map((a) => a.attempt);

    if (!FINAL_STATES.has(row.status)) violations.push(`${where}: not final: ${row.status}`);
    else if (row.status !== doc.scenario.expected) violations.push(`${where}: ${row.status}, expected ${doc.scenario.expected}${history()}`);
    if (accepted.length > 1) violations.push(`${where}: the sandbox accepted it ${accepted.length} times`);
    if (refusedAsUsed.length) violations.push(`${where}: sent again after the sandbox had consumed it (${refusedAsUsed.length}× "e-NCF ya fue utilizado", 1005)`);
    if (subs.length > doc.scenario.sends) violations.push(`${where}: ${subs.length} receptions, at most ${doc.scenario.sends} expected${history()}`);
    const finals = types.filter((t) => FINAL_EVENTS.includes(t));
    if (finals.length !== 1) violations.push(`${where}: ${finals.length} final events: ${types.join(', ')}`);
    // ecf.submitted means "received and returned a TrackId" (service contract): an RFCE has none.
    const submitted = types.filter((t) => t === 'ecf.submitted').length;
    if (!doc.rfce && submitted < 1) violations.push(`${where}: no ecf.submitted: ${types.join(', ')}`);
    if (!doc.rfce && submitted !== subs.length) violations.push(`${where}: ${submitted} ecf.submitted for ${subs.length} receptions`);
    if (numbers.join() !== numbers.map((_, i) => i + 1).join() || numbers.length === 0) violations.push(`${where}: attempts numbered ${numbers.join(',') || '(none)'}`);
    const last = attemptsOf.get(doc.id)?.at(-1);
    if (last && last.outcome !== row.status) violations.push(`${where}: last attempt ${last.outcome} but status ${row.status}`);
  }
  return violations;
}

/** One request the engine made to the authority, as the recording proxy saw it. */
export interface ProxiedCall {
  /** Order in which the requests reached the proxy (the whole body in hand, for uploads). */
  readonly seq: number;
  readonly kind: 'send' | 'rfce' | 'trackIds' | 'status' | 'result' | 'auth' | 'other';
  readonly encf: string | null;
  /** Real time (Date.now()) the request reached the proxy. */
  readonly at: number;
  /** Order at which the sandbox's answer was complete (or the exchange failed); null while in flight. */
  endSeq: number | null;
  /** The sandbox's HTTP status; null when its connection closed without an answer (a scripted lost response). */
  status: number | null;
}

export interface RecordingProxy {
  readonly url: string;
  readonly calls: readonly ProxiedCall[];
  /** Requests forwarded whose answer has not come back from the sandbox yet. */
  inFlight(): number;
  close(): Promise<void>;
}

const ENCF_IN_NAME = /(E\d{12})\.xml/;
const ENCF_PARAM = /^E\d{12}$/;

function kindOf(path: string): ProxiedCall['kind'] {
  const p = path.toLowerCase();
  if (p.includes('/autenticacion/')) return 'auth';
  if (p.includes('/recepcionfc/')) return 'rfce';
  if (p.includes('/recepcion/')) return 'send';
  if (p.includes('/consultatrackids/')) return 'trackIds';
  if (p.includes('/consultaestado/')) return 'status';
  if (p.includes('/consultaresultado/')) return 'result';
  return 'other';
}

/**
 * An HTTP proxy in front of the sandbox that numbers every request the engine makes, so a test can
 * tell whether the engine asked about an e-NCF before sending it again. An upload is forwarded
 * once its whole body arrived, and forwarded to the end even when the worker that made it dies
 * meanwhile: the authority would have received it.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const calls: ProxiedCall[] = [];
  let seq = 0;
  let open = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {});
    res.on('error', () => {});
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://proxy');
      const kind = kindOf(url.pathname);
      let encf: string | null = null;
      if (kind === 'send' || kind === 'rfce') encf = ENCF_IN_NAME.exec(body.toString('latin1'))?.[1] ?? null;
      else for (const v of url.searchParams.values()) if (ENCF_PARAM.test(v)) encf = v;
      const call: ProxiedCall = { seq: ++seq, kind, encf, at: Date.now(), endSeq: null, status: null };
      calls.push(call);
      open++;
      const finish = (status: number | null) => {
        if (call.endSeq !== null) return;
        call.endSeq = ++seq;
        call.status = status;
        open--;
      };
      const headers = { ...req.headers, host: to.host, 'content-length': String(body.length) };
      delete headers['transfer-encoding'];
      const upstream = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers, agent }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('error', () => {
          finish(null);
          res.destroy();
        });
        answer.on('end', () => {
          finish(answer.statusCode ?? null);
          if (res.destroyed) return;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(parts));
        });
      });
      // The sandbox dropped the connection (a scripted lost response): the engine sees the same.
      upstream.on('error', () => {
        finish(null);
        res.destroy();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    inFlight: () => open,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/**
 * The fixture `entry` (a path from the repository's root) bundled with the engine's sources into
 * one JavaScript module, for child processes that are started many times: it starts in about a
 * second where `node --import tsx` takes three to five, all of it module loading. Built from the
 * sources as they are now (never a stale dist/); the packages stay in node_modules, which is why
 * the bundle is written below it. Returns the bundle's path and a function that removes it.
 */
export async function bundleFixture(root: string, entry: string): Promise<{ file: string; remove: () => void }> {
  const { build } = await import('esbuild');
  const dir = join(root, 'node_modules', '.cache', 'ecf-test-fixtures');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${basename(entry, extname(entry))}-${process.pid}-${randomBytes(4).toString('hex')}.mjs`);
  await build({
    entryPoints: [join(root, entry)],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return { file, remove: () => rmSync(file, { force: true }) };
}

/** A child process running a fixture that prints `ready …` once it works. */
export interface FixtureProcess {
  readonly child: ChildProcess;
  /** Resolves with true on the "ready" line, false when the process exits first. */
  readonly ready: Promise<boolean>;
  readonly exited: Promise<number | null>;
  readonly lines: string[];
  readonly stderr: () => string;
}

/** Starts `node <argv>` in `cwd`: a bundled fixture and its arguments, or `--import tsx` and a TypeScript one. */
export function startFixture(argv: readonly string[], cwd: string): FixtureProcess {
  const child = spawn(process.execPath, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<boolean>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('ready ')) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  return { child, ready, exited, lines, stderr: () => err };
}
