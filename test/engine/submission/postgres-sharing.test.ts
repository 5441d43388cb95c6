// Two engine processes on one PostgreSQL database (issue 23): each runs the concurrent pump
// (runBackgroundWork, test/fixtures/pump-worker.ts) and LISTENs for the commits of new work, as
// `ecf serve`'s work job does. They share one backlog without sending an e-NCF twice, and a commit
// in another process wakes a pump that would otherwise not look again for ten minutes.
//
// PostgreSQL only: sh scripts/with-postgres.sh npx vitest run test/engine/submission/postgres-sharing.test.ts
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { FINAL_STATES } from '../../../src/engine/submission/rules.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { STORE, invoice31, seedIssuer, testDataDir, waitUntil } from '../../helpers.js';
import { bundleFixture, consumer32, realClock, startFixture, type FixtureProcess } from './crash-tools.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BACKLOG = 300;
/** Per process: small enough that neither drains the backlog alone before the other has started. */
const CONCURRENCY = 16;
const LATENCY = { delayMs: 20, jitterMs: 40 } as const;
/** The rare poll of the woken process: only a NOTIFY explains its sending within the test. */
const RARE_POLL_MS = 600_000;

interface Summary {
  readonly owner: string;
  readonly performed: number;
  readonly counts: Record<string, number>;
}

async function stopWorker(worker: FixtureProcess): Promise<Summary> {
  worker.child.kill('SIGTERM');
  const code = await worker.exited;
  expect(code, `worker exit; stderr:\n${worker.stderr()}\nstdout:\n${worker.lines.join('\n')}`).toBe(0);
  return JSON.parse(worker.lines.at(-1)!) as Summary;
}

/** A data dir on its own database, pointed at the sandbox, with a tenant ready to issue; the engine stays open. */
async function prepare(sandbox: RunningSandbox) {
  const dataDir = testDataDir('ecf-pg-share-');
  const engine = await openEngine({ dataDir, clock: realClock() });
  await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
  await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
  await setSetting(engine, 'taxauth.timeout_ms', 10_000);
  await setSetting(engine, 'taxauth.concurrency', CONCURRENCY);
  const { tenant } = await seedIssuer(engine);
  await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
  let n = 0;
  const issue = async (rfce = false) => (await issueEcf(engine, tenant.id, { idempotencyKey: `pg-${++n}`, payload: rfce ? consumer32() : invoice31() })).ecf;
  return { dataDir, engine, issue };
}

const notFinal = async (engine: Engine) =>
  (await engine.db.selectFrom('ecf').select('status').execute()).filter((r) => !FINAL_STATES.has(r.status)).length;

describe.runIf(STORE === 'postgres')('two engine processes on one PostgreSQL database', () => {
  let bundle: { file: string; remove: () => void };
  // One sandbox per test: its submissions are looked up by e-NCF, and every test's tenant numbers from 1.
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    bundle = await bundleFixture(ROOT, 'test/fixtures/pump-worker.ts');
  });
  beforeEach(async () => {
    sandbox = await startSandbox({ host: '127.0.0.1', clock: realClock(), load: { latency: { all: LATENCY } } });
  });
  afterEach(async () => {
    await sandbox?.close();
  });
  afterAll(() => bundle?.remove());

  it(
    'share one backlog: every e-CF final, each e-NCF received exactly once, and both processes do part of the work',
    async () => {
      const { dataDir, engine, issue } = await prepare(sandbox);
      try {
        const workers = [0, 1].map(() => startFixture([bundle.file, dataDir, '--listen'], ROOT));
        let summaries: Summary[] = [];
        try {
          expect(await Promise.all(workers.map((w) => w.ready))).toEqual([true, true]);
          // Issued while both listen: every commit is a NOTIFY both processes hear.
          const issued = [];
          for (let i = 0; i < BACKLOG; i++) issued.push(await issue(i % 10 === 3));
          await waitUntil(async () => (await notFinal(engine)) === 0, 'every e-CF final', 120_000);
        } finally {
          summaries = await Promise.all(workers.map(stopWorker));
        }
        const statuses = await engine.db.selectFrom('ecf').select(['encf', 'status']).execute();
        expect(statuses).toHaveLength(BACKLOG);
        expect(statuses.filter((s) => s.status !== 'accepted')).toEqual([]);
        const twice = statuses.map((s) => ({ encf: s.encf, received: sandbox.control.submissions({ encf: s.encf }).length })).filter((s) => s.received !== 1);
        expect(twice, 'e-NCF not received exactly once').toEqual([]);
        expect(await engine.db.selectFrom('work').select(['id', 'lease_owner']).execute()).toEqual([]);
        const attempts = await engine.db.selectFrom('ecf_attempts').select('ecf_key').execute();
        expect(attempts).toHaveLength(BACKLOG);
        console.log(`postgres sharing: ${BACKLOG} e-CF; items performed per process: ${summaries.map((s) => s.performed).join(' + ')}`);
        for (const s of summaries) expect(s.performed, `items performed by ${s.owner}`).toBeGreaterThan(0);
      } finally {
        await engine.close();
      }
    },
    180_000,
  );

  it(
    'a commit in another process wakes a pump that polls once in ten minutes',
    async () => {
      const { dataDir, engine, issue } = await prepare(sandbox);
      try {
        // A first e-CF, there before the process starts: its send shows the pump has made its first look.
        const first = await issue();
        const worker = startFixture([bundle.file, dataDir, '--listen', '--poll-ms', String(RARE_POLL_MS)], ROOT);
        try {
          expect(await worker.ready).toBe(true);
          const pollOfFirst = () =>
            engine.db.selectFrom('work').select(['payload', 'due_at', 'lease_owner', 'attempts']).where('ref', '=', first.id).executeTakeFirst();
          await waitUntil(async () => (await pollOfFirst())?.payload.includes('"answered"') === true && (await pollOfFirst())?.lease_owner === null, 'the first e-CF sent', 30_000);
          const asleep = (await pollOfFirst())!;
          // Its status query comes due 2 s later and stays undone: the pump is in its long wait, and
          // nothing but a ring can end that wait early.
          await waitUntil(() => Date.now() > Date.parse(asleep.due_at) + 1_000, 'the first status query overdue');
          expect(await pollOfFirst(), 'the pump slept through a due status query').toEqual(asleep);

          const second = await issue();
          await waitUntil(() => sandbox.control.submissions({ encf: second.encf }).length > 0, 'the second e-CF sent by the woken process', 30_000);
          expect(sandbox.control.submissions({ encf: second.encf })).toHaveLength(1);
          expect(sandbox.control.submissions({ encf: first.encf })).toHaveLength(1);
        } finally {
          await stopWorker(worker);
        }
      } finally {
        await engine.close();
      }
    },
    90_000,
  );
});
