// Crash safety of the submission pipeline: the queue of 200 e-CF is drained by worker processes
// (test/fixtures/submit-worker.ts, on an accelerated clock) that are killed with SIGKILL at random
// points, then one is let finish. Whatever the interleaving, the authority (the sandbox, over
// loopback) must never be sent a document it already has without the engine asking first, and the
// engine's records (state, attempts, events) must come out whole.
//
// Each kill comes 50–600 ms after the worker says it is ready (engine open), so the kills land in
// the work rather than in module loading. The first sends' due times are
// staggered so sends, status queries, resends and recoveries interleave while the kills happen;
// the summary line printed at the end says in how many kills a claim of each phase was held.
// Seeded: CRASH_SEED=<n> replays a run's kill delays (process timing still varies).
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { ecfXml, getEcf } from '../../../src/engine/ecf/queries.js';
import { testDataDir } from '../../helpers.js';
import { harness } from './harness.js';
import { bundleFixture, consumer32, issueBacklog, random, realClock, recordViolations, startFixture, type FixtureProcess, type Issued } from './crash-tools.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SEED = Number(process.env.CRASH_SEED ?? 0x5eed_ecf);
const DOCUMENTS = 200;
const KILLS = 40;
const KILL_AFTER_MS = [50, 600] as const;
const FINAL_RUN_MS = 60_000;
/** Due times of the first sends, this far apart on the workers' clock (× 200: 75 ms real). */
const STAGGER_MS = 15_000;

type Worker = FixtureProcess;

// Bundled once with esbuild: 40 starts under tsx cost most of this test's two minutes.
let worker: { file: string; remove: () => void } | undefined;
beforeAll(async () => {
  worker = await bundleFixture(ROOT, 'test/fixtures/submit-worker.ts');
});
afterAll(() => worker?.remove());
const startWorker = (dataDir: string): Worker => startFixture([worker!.file, dataDir], ROOT);

type Phase = 'first-send' | 'resend' | 'ask-after-unclear' | 'poll';

/**
 * Where the killed worker left things: the claims it held, by phase (a first send; a resend after
 * a transient rejection; a send after an unclear one or a reclaimed claim, which asks the authority
 * first; a status query), and sends the sandbox has that the engine has no record of.
 */
async function snapshot(engine: Engine, sandbox: RunningSandbox, issued: readonly Issued[]) {
  const work = await engine.db.selectFrom('work').selectAll().execute();
  const held = work.filter((w) => w.lease_owner !== null);
  const heldRefs = new Set(held.map((w) => w.ref));
  const ecfs = await engine.db.selectFrom('ecf').select(['id', 'encf', 'taxauth', 'retry']).execute();
  const attempts = await engine.db.selectFrom('ecf_attempts').innerJoin('ecf', 'ecf.store_key', 'ecf_attempts.ecf_key').select(['ecf.id as ecf_id', 'track_id']).execute();
  const retried = new Set(ecfs.filter((e) => e.retry !== null).map((e) => e.id));
  const phases = held.map((w): Phase => {
    const p = JSON.parse(w.payload) as { phase?: string };
    if (p.phase === 'answered') return 'poll';
    const unclear = p.phase === 'unclear';
    if (unclear || w.attempts > 1) return retried.has(w.ref!) && !unclear ? 'resend' : 'ask-after-unclear';
    return 'first-send';
  });
  const recorded = new Set<string>();
  for (const e of ecfs) {
    const t = e.taxauth ? (JSON.parse(e.taxauth) as { trackId?: string }).trackId : undefined;
    if (t) recorded.add(t);
  }
  for (const a of attempts) if (a.track_id) recorded.add(a.track_id);
  const attemptsOf = new Map<string, number>();
  for (const a of attempts) attemptsOf.set(a.ecf_id, (attemptsOf.get(a.ecf_id) ?? 0) + 1);
  // A send the sandbox has and the engine does not, on an item the killed worker held: the kill
  // landed between the send and the recording of its answer.
  let sentNotRecorded = 0;
  for (const doc of issued) {
    if (!heldRefs.has(doc.id)) continue;
    const subs = sandbox.control.submissions({ encf: doc.encf });
    if (doc.rfce) sentNotRecorded += Math.max(0, subs.length - (attemptsOf.get(doc.id) ?? 0));
    else sentNotRecorded += subs.filter((s) => s.trackId && !recorded.has(s.trackId)).length;
  }
  return { pending: work.length, held: held.length, phases, sentNotRecorded };
}

describe('submission under SIGKILL (worker processes against the sandbox)', () => {
  // The interleaving the random test below runs into now and then, made deterministic: a worker
  // marked the RFCE's send unclear, sent it, the authority answered a transient rejection (9001,
  // e-NCF not consumed), and the worker died before recording it. The next claim must not turn
  // that into a final rejection with the sequence consumed: the transient rejection allows a resend.
  it('an RFCE whose transient rejection was lost with its worker is resent, not rejected for good', async () => {
    const h = await harness();
    const ecf = await h.issue(consumer32());
    h.sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'transientReject' }, { kind: 'accept' }] });
    // What the dead worker did: the unclear mark (as markUnclear writes it), then the send.
    await h.engine.db.updateTable('work').set({ payload: JSON.stringify({ phase: 'unclear' }) }).where('ref', '=', ecf.id).execute();
    const client = await h.engine.taxauth.client('test');
    const xml = (await ecfXml(h.engine, h.tenant.id, ecf.id, true)).bytes;
    const lost = await h.engine.taxauth.withToken(h.tenant.id, 'test', (t) => client.sendRfce(t, { rnc: h.tenant.rnc, encf: ecf.encf, xml }));
    expect(lost).toMatchObject({ code: 2, sequenceUsed: false, messages: [expect.objectContaining({ code: 9001 })] });
    await h.drive();
    expect(await getEcf(h.engine, h.tenant.id, ecf.id)).toMatchObject({ status: 'accepted' });
    expect(h.sandbox.control.submissions({ encf: ecf.encf }).map((s) => s.verdict.code)).toEqual([2, 1]);
  });

  it(
    'every e-CF ends final, accepted at most once, with one final event and attempts 1..n, whatever point the workers die at',
    async () => {
      const sandbox = await startSandbox({ host: '127.0.0.1', clock: realClock() });
      try {
        // ---- prepare the data dir: 200 e-CF issued on the real clock, then the engine closed
        const dataDir = testDataDir('ecf-crash-');
        const issueStarted = Date.now();
        // As if the documents had been issued STAGGER_MS apart (on the workers' clock): the queue is
        // claimed oldest due first, so with every first send due at once no status query, resend or
        // recovery would run before the last first send, and the kills would all land in sends.
        const issued = await issueBacklog(dataDir, sandbox, {
          documents: DOCUMENTS,
          authorityUrl: sandbox.url,
          dueAt: (i, base) => new Date(base + i * STAGGER_MS),
        });
        const issueMs = Date.now() - issueStarted;

        // ---- drain with workers killed at random, then one let finish
        const startupsMs: number[] = [];
        let finalMs = 0;
        const rand = random(SEED);
        const kills: (Awaited<ReturnType<typeof snapshot>> & { afterMs: number })[] = [];
        let final: Worker | null = null;
        while (!final) {
          const spawnedAt = Date.now();
          const worker = startWorker(dataDir);
          const started = await worker.ready;
          const readyAt = Date.now();
          startupsMs.push(readyAt - spawnedAt);
          if (started && kills.length < KILLS) {
            const afterMs = KILL_AFTER_MS[0] + Math.floor(rand() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0] + 1));
            const exitedFirst = await Promise.race([worker.exited.then(() => true), sleep(afterMs).then(() => false)]);
            if (!exitedFirst) {
              worker.child.kill('SIGKILL');
              await worker.exited;
              const engine = await openEngine({ dataDir, clock: realClock(), migrate: false });
              try {
                kills.push({ afterMs, ...(await snapshot(engine, sandbox, issued)) });
              } finally {
                await engine.close();
              }
              continue;
            }
          }
          // Not killed: the queue drained on its own, or this is the last run.
          const timer = setTimeout(() => worker.child.kill('SIGKILL'), FINAL_RUN_MS);
          const code = await worker.exited;
          clearTimeout(timer);
          finalMs = Date.now() - readyAt;
          expect(code, `the last worker did not finish cleanly (seed ${SEED}); stderr:\n${worker.stderr()}\nstdout:\n${worker.lines.join('\n')}`).toBe(0);
          final = worker;
        }

        const killedIn = (phase: Phase) => kills.filter((k) => k.phases.includes(phase)).length;
        const avg = (xs: number[]) => (xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
        console.log(
          `crash test (seed ${SEED}): issued ${DOCUMENTS} in ${issueMs} ms; ${kills.length} kills ` +
            `(worker start avg ${avg(startupsMs)} ms, kill after avg ${avg(kills.map((k) => k.afterMs))} ms, pending at the kills ${kills.map((k) => k.pending).join(',')}); ` +
            `kills with a claim held in ${(['first-send', 'resend', 'ask-after-unclear', 'poll'] as const).map((p) => `${p} ${killedIn(p)}`).join(', ')}; ` +
            `between a send and its recording ${kills.filter((k) => k.sentNotRecorded > 0).length}; ` +
            `last run ${finalMs} ms: ${final.lines.at(-1)}`,
        );
        // The scenarios and the staggered due times are there so kills land while claims are held. Which phase a
        // random kill hits depends on how fast this machine runs the worker (a quiet CI machine once had no kill
        // in first-send), so the phases are reported above and only kills inside some claim are required.
        const phases = ['first-send', 'resend', 'ask-after-unclear', 'poll'] as const;
        expect(phases.reduce((n, phase) => n + killedIn(phase), 0), 'kills with a claim held').toBeGreaterThan(0);

        // ---- what came out
        const engine = await openEngine({ dataDir, clock: realClock(), migrate: false });
        try {
          const contingency = await engine.db.selectFrom('events').select('type').where('type', 'like', 'contingency.%').execute();
          console.log(`contingency events: ${contingency.map((e) => e.type).join(', ') || 'none'}`);
          expect(await engine.db.selectFrom('work').select('id').execute()).toEqual([]);
          const violations = await recordViolations(engine, sandbox, issued);
          expect(violations, `seed ${SEED}, ${kills.length} kills`).toEqual([]);
        } finally {
          await engine.close();
        }
      } finally {
        await sandbox.close();
      }
    },
    300_000,
  );
});
