// Crash safety of `ecf certify run`: a worker process runs a whole Paso 2 set against the sandbox
// (with 300-600 ms of latency on reception, and each kill shortly after a send is answered, so most
// kills land while the next send is on the wire) and is killed with SIGKILL at random
// moments, then one is let finish. Whatever the moment, no case reaches the authority twice: a
// send a dead run left unrecorded is asked about (consultatrackids, or the RFCE's status) before it
// is sent again. Seeded: CRASH_SEED=<n> replays the kill delays.
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { importWorkbook } from '../../../src/engine/certification/import.js';
import { loadCases } from '../../../src/engine/certification/cases.js';
import { startCertification } from '../../../src/engine/certification/state.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { seedIssuer, testDataDir } from '../../helpers.js';
import { bundleFixture, random, startFixture } from '../submission/crash-tools.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SEED = Number(process.env.CRASH_SEED ?? 0x24ce27);
const KILLS = 8;
/** Kills come this long after the worker's next answered send: most of it is a send on the wire. */
const KILL_AFTER_MS = [0, 700] as const;
const SPEED = 20;

let worker: { file: string; remove: () => void };
let sandbox: RunningSandbox;
beforeAll(async () => {
  worker = await bundleFixture(ROOT, 'test/fixtures/certify-worker.ts');
  sandbox = await startSandbox({ load: { latency: { all: { delayMs: 10, jitterMs: 20 }, reception: { delayMs: 300, jitterMs: 300 }, rfce: { delayMs: 300, jitterMs: 300 } } } });
});
afterAll(async () => {
  worker?.remove();
  await sandbox?.close();
});

describe('ecf certify run under SIGKILL', () => {
  it('sends every case of the set exactly once, whatever moment the run dies at, and finishes with every case accepted', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const seeded = await seedIssuer(engine);
    const tenantId = seeded.tenant.id;
    const rnc = seeded.tenant.rnc;
    await setSetting(engine, 'taxauth.url.cert', `${sandbox.url}/certecf`);
    await setSetting(engine, 'taxauth.fc_url.cert', `${sandbox.url}/certecf`);
    await setSetting(engine, 'taxauth.timeout_ms', 1000);
    await startCertification(engine, tenantId);
    const base = `${sandbox.url}/_sandbox/certification/${rnc}`;
    expect((await fetch(`${base}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"variant":"full"}' })).ok).toBe(true);
    const book = Buffer.from(await (await fetch(`${base}/paso2.xlsx`)).arrayBuffer());
    expect((await importWorkbook(engine, tenantId, book, 'paso2.xlsx')).problems).toEqual([]);
    // Besides the kills: the answers to a few sends are lost after the sandbox received them, the
    // case a kill between the authority's receipt and the run's record of it leaves.
    const cases = await loadCases(engine, tenantId, 2);
    const lost = [...cases.filter((c) => c.phase === 'ecf').slice(0, 3), ...cases.filter((c) => c.phase === 'rfce').slice(0, 1)];
    for (const c of lost) sandbox.control.script({ encf: c.encf, outcomes: [{ kind: 'lostResponse' }] });
    await engine.close();

    const next = random(SEED);
    let killedInFlight = 0;
    for (let k = 0; k < KILLS; k++) {
      const p = startFixture([worker.file, dataDir, tenantId, '--speed', String(SPEED)], ROOT);
      expect(await p.ready, p.stderr()).toBe(true);
      const answered = () => p.lines.filter((l) => l.startsWith('sent ')).length;
      const before = answered();
      while (answered() === before && p.child.exitCode === null) await sleep(20);
      await Promise.race([sleep(KILL_AFTER_MS[0] + next() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0])), p.exited]);
      if (p.child.exitCode === null) {
        p.child.kill('SIGKILL');
        killedInFlight++;
      }
      await p.exited;
    }
    const last = startFixture([worker.file, dataDir, tenantId, '--speed', String(SPEED)], ROOT);
    const code = await last.exited;
    expect(code, last.stderr()).toBe(0);
    const outcome = JSON.parse(last.lines.at(-1)!) as { outcome: string; rejected: unknown[] };
    expect(outcome.rejected).toEqual([]);
    expect(outcome.outcome).toBe('done');
    expect(killedInFlight).toBeGreaterThan(KILLS / 2);

    const check = await openEngine({ dataDir });
    try {
      const cases = await loadCases(check, tenantId, 2);
      const duplicates: string[] = [];
      for (const c of cases.filter((x) => x.phase !== 'upload')) {
        const kind = c.kind === 'rfce' ? 'rfce' : 'ecf';
        const received = sandbox.control.submissions({ encf: c.encf, environment: 'certecf' }).filter((s) => s.kind === kind);
        if (received.length !== 1) duplicates.push(`${c.encf} (${kind}) received ${received.length} times`);
        expect(c.state).toBe('accepted');
      }
      expect(duplicates).toEqual([]);
    } finally {
      await check.close();
    }
  }, 120_000);
});
