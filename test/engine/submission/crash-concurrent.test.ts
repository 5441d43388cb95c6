// Crash safety of concurrent submission: a backlog is drained through the pump (runBackgroundWork,
// many sends and status queries in flight at once) by worker processes (test/fixtures/pump-worker.ts)
// that are killed with SIGKILL at random moments, then one is let finish. The sandbox answers with
// latency, so each kill lands while dozens of calls are in flight. A recording proxy between the
// workers and the sandbox numbers every call, so the test can tell whether the engine asked the
// authority (consultatrackids / consultaestado) before sending an e-NCF again.
//
// Why a fixture and not `ecf serve`: the leases a killed process held expire after two minutes of
// its clock (DEFAULT_LEASE_MS, not a setting), and the status ladder and the resend after a
// transient rejection wait 2 s to 30 s; on the real clock one kill costs two minutes. The fixture
// runs the same code as serve's work job (runBackgroundWork over the data dir) on a clock that runs
// at 10 × real time and skips ahead when the worker has nothing in flight and nothing is due
// (test/fixtures/accelerated-clock.ts), never going backwards across kills. Not faster: at 50 ×
// a lease lasted 2.4 s, which a loaded machine's worker overran with 64 items in flight, and the
// engine then ran those items twice at once (see /work/readme-notes/crash.md).
//
// Half the kills come at a random moment of a worker's work (counted from its first call to the
// authority), half once 10 to 50 of its calls are in flight; the line printed at the end says how
// many calls were in flight and which claims were held at each kill.
// Seeded: CRASH_SEED=<n> replays a run's kill delays (process timing still varies).
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { FINAL_STATES } from '../../../src/engine/submission/rules.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { STORE, testDataDir } from '../../helpers.js';
import { bundleFixture, groupBy, issueBacklog, random, realClock, recordViolations, startFixture, startRecordingProxy, type FixtureProcess, type Issued, type ProxiedCall } from './crash-tools.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SEED = Number(process.env.CRASH_SEED ?? 0xc0c_ecf);
const DOCUMENTS = 200;
const KILLS = 15;
/** Real ms between the worker's first call to the authority (its token) and a kill at a random moment. */
const KILL_AFTER_MS = [50, 1_200] as const;
/** The other kills come once this many calls are in flight (a number drawn in the range), or after KILL_WAIT_MS. */
const KILL_IN_FLIGHT = [10, 50] as const;
const KILL_WAIT_MS = 2_000;
/** The workers' clock: 10 × real time (a lease's 2 min is 12 s, the ladder's first 2 s 200 ms), and idle waits skipped. */
const SPEED = 10;
/**
 * The sandbox's latency per request, and its cap on requests in flight: above it, 503 at once (the
 * engine's busy answer: not received, back off, no unclear mark). The pump's bound is 64, so the
 * cap is reached now and then and the pump halves its bound for a while.
 */
const LATENCY = { delayMs: 20, jitterMs: 80 } as const;
const MAX_IN_FLIGHT = 32;
/** The first sends come due in batches this big, this far apart (skipped when the worker is idle). */
const BATCH = 40;
const BATCH_EVERY_MS = 25_000;
const FINAL_RUN_MS = 90_000;

type Phase = 'send' | 'poll';
/** A worker's life, in real ms, and its clock at "ready". */
interface Run {
  readonly pid: number;
  readonly clock: string;
  readonly readyAt: number;
  readonly killedAt: number | null;
}

type Worker = FixtureProcess;

const startWorker = (bundle: string, dataDir: string): Worker =>
  startFixture([bundle, dataDir, '--speed', String(SPEED), '--skip-idle', '--poll-ms', '10', '--until-empty'], ROOT);

/**
 * Right after a kill: the claims the dead worker left (by phase), and every e-CF that is not final
 * must still have its work row, or nothing would ever finish it.
 */
async function afterKill(engine: Engine, issued: readonly Issued[]) {
  const work = await engine.db.selectFrom('work').select(['ref', 'lease_owner', 'payload']).execute();
  const held = work.filter((w) => w.lease_owner !== null);
  const phases = held.map((w) => ((JSON.parse(w.payload) as { phase?: string }).phase === 'answered' ? 'poll' : 'send') as Phase);
  const pendingRefs = new Set(work.map((w) => w.ref));
  const status = new Map((await engine.db.selectFrom('ecf').select(['id', 'status']).execute()).map((r) => [r.id, r.status]));
  const orphans = issued.filter((d) => !FINAL_STATES.has(status.get(d.id) ?? '') && !pendingRefs.has(d.id)).map((d) => `${d.encf}: ${status.get(d.id)} without work`);
  return { pending: work.length, held: held.length, phases, orphans };
}

/**
 * Every second (or later) reception of an e-NCF must follow either a status query about it
 * (consultatrackids or consultaestado) that the sandbox answered after the previous send began and
 * before this one began, or a transient rejection of the previous send that the engine recorded
 * (an attempt with retry_decision auto:…). Also: what the proxy saw sent is what the sandbox has.
 */
function sentTwiceWithoutAsking(
  issued: readonly Issued[],
  calls: readonly ProxiedCall[],
  receptions: (encf: string) => readonly { trackId: string | null }[],
  autoRetries: Map<string, { trackId: string | null }[]>,
): string[] {
  const violations: string[] = [];
  const byEncf = groupBy(
    calls.filter((c) => c.encf !== null),
    (c) => c.encf!,
  );
  for (const doc of issued) {
    const mine = byEncf.get(doc.encf) ?? [];
    // Answered 429/503: refused at the door, not received.
    const sends = mine.filter((c) => (c.kind === 'send' || c.kind === 'rfce') && c.status !== 429 && c.status !== 503);
    const asks = mine.filter((c) => c.kind === 'trackIds' || c.kind === 'status');
    const subs = receptions(doc.encf);
    if (sends.length !== subs.length) {
      violations.push(`${doc.encf}: the proxy forwarded ${sends.length} sends, the sandbox has ${subs.length}`);
      continue;
    }
    const heard = [...(autoRetries.get(doc.id) ?? [])];
    for (let i = 1; i < sends.length; i++) {
      const before = sends[i - 1]!;
      const send = sends[i]!;
      if (before.endSeq === null || before.endSeq > send.seq) violations.push(`${doc.encf}: send ${i + 1} began while send ${i} was in flight`);
      if (asks.some((q) => q.seq > before.seq && q.endSeq !== null && q.endSeq < send.seq)) continue;
      // The engine heard the previous send's transient rejection itself: a resend needs no question.
      const trackId = subs[i - 1]!.trackId;
      const at = heard.findIndex((a) => (doc.rfce ? true : a.trackId === trackId));
      if (at >= 0) {
        heard.splice(at, 1);
        continue;
      }
      violations.push(`${doc.encf} (${doc.scenario.name}): send ${i + 1} without a status query since send ${i} and without a recorded transient rejection of it`);
    }
  }
  return violations;
}

/** What happened to the e-NCF named in the violations, in real time from the start: worker runs, calls, events, attempts. */
async function timelines(
  engine: Engine,
  violations: readonly string[],
  issued: readonly Issued[],
  calls: readonly ProxiedCall[],
  runs: readonly Run[],
  t0: number,
): Promise<string> {
  const out = [`runs: ${runs.map((r) => `${r.pid} (clock ${r.clock}) ${r.readyAt - t0}..${r.killedAt === null ? 'end' : r.killedAt - t0}`).join(', ')}`];
  const named = new Set(violations.map((v) => /E\d{12}/.exec(v)?.[0]).filter(Boolean));
  for (const doc of issued.filter((d) => named.has(d.encf)).slice(0, 5)) {
    out.push(`-- ${doc.encf} (${doc.scenario.name})`);
    for (const c of calls.filter((c) => c.encf === doc.encf)) out.push(`  ${c.at - t0} ms #${c.seq}..${c.endSeq} ${c.kind} -> ${c.status}`);
    const events = await engine.db.selectFrom('events').select(['seq', 'type', 'created_at', 'data']).where('type', 'like', 'ecf.%').orderBy('seq').execute();
    for (const e of events.filter((e) => (JSON.parse(e.data) as { id: string }).id === doc.id)) out.push(`  event #${e.seq} ${e.type} at ${e.created_at}`);
    const attempts = await engine.db.selectFrom('ecf_attempts').selectAll().where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', doc.id)).orderBy('attempt').execute();
    for (const a of attempts) out.push(`  attempt ${a.attempt} ${a.outcome} ${a.status_code} ${a.track_id} ${a.retry_decision ?? ''} at ${a.recorded_at}`);
  }
  return out.join('\n');
}

describe('concurrent submission under SIGKILL (pump workers against a sandbox with latency)', () => {
  let bundle: { file: string; remove: () => void };
  beforeAll(async () => {
    bundle = await bundleFixture(ROOT, 'test/fixtures/pump-worker.ts');
  });
  afterAll(() => bundle?.remove());

  it(
    'never sends an e-NCF again without asking, leaves no e-CF without work or a final state, and completes every record',
    async () => {
      const started = Date.now();
      const sandbox = await startSandbox({ host: '127.0.0.1', clock: realClock(), load: { latency: { all: LATENCY }, maxInFlight: MAX_IN_FLIGHT, overloadStatus: '503' } });
      const proxy = await startRecordingProxy(sandbox.url);
      try {
        const dataDir = testDataDir('ecf-crash-pump-');
        // Batches of first sends due together: dozens in flight at once, while the batches before
        // them are in status queries, resends and recoveries.
        const issued = await issueBacklog(dataDir, sandbox, {
          documents: DOCUMENTS,
          authorityUrl: proxy.url,
          dueAt: (i, base) => new Date(base + Math.floor(i / BATCH) * BATCH_EVERY_MS),
        });
        const issueMs = Date.now() - started;

        const rand = random(SEED);
        const kills: (Awaited<ReturnType<typeof afterKill>> & { afterMs: number; byLoad: boolean; inFlight: number })[] = [];
        const startupsMs: number[] = [];
        const runs: Run[] = [];
        let final: Worker | null = null;
        let finalMs = 0;
        while (!final) {
          const spawnedAt = Date.now();
          const worker = startWorker(bundle.file, dataDir);
          const ready = await worker.ready;
          const readyAt = Date.now();
          startupsMs.push(readyAt - spawnedAt);
          if (ready && kills.length < KILLS) {
            // Kill at a random moment of the work itself, not of the process start: counted from its first
            // call to the authority (the token, then at once the claimed items' calls).
            const callsBefore = proxy.calls.length;
            const firstCall = (async () => {
              while (proxy.calls.length === callsBefore) await sleep(2);
            })();
            await Promise.race([firstCall, worker.exited, sleep(5_000)]);
            // Half the kills at a random moment, half once dozens of calls are in flight.
            const byLoad = rand() < 0.5;
            const afterMs = KILL_AFTER_MS[0] + Math.floor(rand() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0] + 1));
            const threshold = KILL_IN_FLIGHT[0] + Math.floor(rand() * (KILL_IN_FLIGHT[1] - KILL_IN_FLIGHT[0] + 1));
            const loaded = (async () => {
              const until = Date.now() + KILL_WAIT_MS;
              while (proxy.inFlight() < threshold && Date.now() < until) await sleep(1);
            })();
            const exitedFirst = await Promise.race([worker.exited.then(() => true), (byLoad ? loaded : sleep(afterMs)).then(() => false)]);
            if (!exitedFirst) {
              const inFlight = proxy.inFlight();
              runs.push({ pid: worker.child.pid!, clock: worker.lines[0]?.split(' ')[1] ?? '?', readyAt, killedAt: Date.now() });
              worker.child.kill('SIGKILL');
              await worker.exited;
              const engine = await openEngine({ dataDir, clock: realClock(), migrate: false });
              try {
                kills.push({ afterMs: Date.now() - readyAt, byLoad, inFlight, ...(await afterKill(engine, issued)) });
              } finally {
                await engine.close();
              }
              continue;
            }
          }
          // Not killed: the backlog drained on its own, or this is the last run.
          const timer = setTimeout(() => worker.child.kill('SIGKILL'), FINAL_RUN_MS);
          const code = await worker.exited;
          clearTimeout(timer);
          finalMs = Date.now() - readyAt;
          runs.push({ pid: worker.child.pid!, clock: worker.lines[0]?.split(' ')[1] ?? '?', readyAt, killedAt: null });
          expect(code, `the last worker did not finish cleanly (seed ${SEED}); stderr:\n${worker.stderr()}\nstdout:\n${worker.lines.join('\n')}`).toBe(0);
          final = worker;
        }
        // Calls a killed worker left in flight still reach the sandbox and are answered to the proxy.
        const deadline = Date.now() + 10_000;
        while (proxy.inFlight() > 0 && Date.now() < deadline) await sleep(10);

        const avg = (xs: number[]) => (xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
        const count = (kind: ProxiedCall['kind']) => proxy.calls.filter((c) => c.kind === kind).length;
        const busy = proxy.calls.filter((c) => c.status === 429 || c.status === 503).length;
        console.log(
          `crash-concurrent (${STORE}, seed ${SEED}): issued ${DOCUMENTS} in ${issueMs} ms; ${kills.length} kills ` +
            `(worker start avg ${avg(startupsMs)} ms, killed on average ${avg(kills.map((k) => k.afterMs))} ms after ready, ${kills.filter((k) => k.byLoad).length} of them once enough calls were in flight); ` +
            `calls in flight at the kills ${kills.map((k) => k.inFlight).join(',')}; ` +
            `claims held at the kills ${kills.map((k) => `${k.phases.filter((p) => p === 'send').length}s+${k.phases.filter((p) => p === 'poll').length}p`).join(',')}; ` +
            `pending ${kills.map((k) => k.pending).join(',')}; ` +
            `calls: ${count('send')} sends, ${count('rfce')} RFCE, ${count('result')} results, ${count('trackIds')} trackIds, ${count('status')} status, ${count('auth')} auth, ${busy} answered busy; ` +
            `last run ${finalMs} ms: ${final.lines.at(-1)}; total ${Date.now() - started} ms`,
        );
        // The kills must land in concurrent work, or this test proves no more than crash.test.ts.
        expect(Math.max(...kills.map((k) => k.inFlight)), 'the most calls in flight at a kill').toBeGreaterThanOrEqual(20);
        // A backlog drained before the last kill ends the kills early; most must still have happened, inside claims.
        expect(kills.length, 'kills').toBeGreaterThanOrEqual(10);
        expect(kills.filter((k) => k.held > 0).length, 'kills with claims held').toBeGreaterThanOrEqual(kills.length / 2);
        expect(kills.flatMap((k) => k.orphans), 'e-CF neither final nor with work, right after a kill').toEqual([]);

        const engine = await openEngine({ dataDir, clock: realClock(), migrate: false });
        try {
          expect(await engine.db.selectFrom('work').select(['id', 'kind', 'ref', 'lease_owner']).execute(), 'work left after the last run').toEqual([]);
          expect(await engine.db.selectFrom('webhook_deliveries').select('id').where('lease_owner', 'is not', null).execute()).toEqual([]);

          const violations = await recordViolations(engine, sandbox, issued);

          const attempts = await engine.db
            .selectFrom('ecf_attempts')
            .innerJoin('ecf', 'ecf.store_key', 'ecf_attempts.ecf_key')
            .select(['ecf.id as ecf_id', 'attempt', 'outcome', 'status_code', 'track_id', 'retry_decision'])
            .orderBy('ecf.id')
            .orderBy('attempt')
            .execute();
          const attemptsOf = groupBy(attempts, (a) => a.ecf_id);
          const autoRetries = new Map<string, { trackId: string | null }[]>();
          for (const a of attempts) {
            if (a.retry_decision?.startsWith('auto:')) autoRetries.set(a.ecf_id, [...(autoRetries.get(a.ecf_id) ?? []), { trackId: a.track_id }]);
          }
          const statuses = new Map((await engine.db.selectFrom('ecf').select(['id', 'status']).execute()).map((r) => [r.id, r.status]));
          const finalEvents = groupBy(
            (await engine.db.selectFrom('events').select(['type', 'data']).where('type', 'in', ['ecf.accepted', 'ecf.accepted_conditional', 'ecf.rejected', 'ecf.review', 'ecf.failed']).execute()).map(
              (e) => ({ type: e.type, id: (JSON.parse(e.data) as { id: string }).id }),
            ),
            (e) => e.id,
          );

          for (const doc of issued) {
            const where = `${doc.encf} (${doc.scenario.name})`;
            const subs = sandbox.control.submissions({ encf: doc.encf });
            const mine = attemptsOf.get(doc.id) ?? [];
            const status = statuses.get(doc.id);
            const event = finalEvents.get(doc.id)?.map((e) => e.type) ?? [];
            if (event.length === 1 && event[0] !== `ecf.${status}`) violations.push(`${where}: final event ${event[0]} but status ${status}`);
            if (!doc.rfce) {
              // One attempt per verdict the sandbox gave, each trackId once, with the sandbox's code.
              const given = subs.map((s) => `${s.trackId}:${s.verdict.code}`).sort();
              const recorded = mine.map((a) => `${a.track_id}:${a.status_code}`).sort();
              if (given.join() !== recorded.join()) violations.push(`${where}: sandbox verdicts ${given.join(' ')}, attempts ${recorded.join(' ')}`);
            } else {
              // An RFCE's verdict comes only in the answer to its send (or a status query after an unclear one):
              // a verdict lost with its worker is learnt later or replaced by the resend's.
              const last = subs.at(-1);
              if (mine.length > subs.length) violations.push(`${where}: ${mine.length} attempts for ${subs.length} receptions`);
              if (last && mine.at(-1)?.status_code !== last.verdict.code) violations.push(`${where}: last attempt code ${mine.at(-1)?.status_code}, sandbox's last verdict ${last.verdict.code}`);
              const transientGiven = subs.filter((s) => s.verdict.code === 2).length;
              if ((autoRetries.get(doc.id)?.length ?? 0) > transientGiven) violations.push(`${where}: more automatic resends recorded than transient rejections given`);
            }
          }
          violations.push(...sentTwiceWithoutAsking(issued, proxy.calls, (encf) => sandbox.control.submissions({ encf }), autoRetries));
          if (violations.length) console.log(await timelines(engine, violations, issued, proxy.calls, runs, started));
          expect(violations, `seed ${SEED}, ${kills.length} kills`).toEqual([]);
        } finally {
          await engine.close();
        }
      } finally {
        await proxy.close();
        await sandbox.close();
      }
    },
    240_000,
  );
});
