import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { runDueWork } from '../../../src/engine/work/run.js';
import { WORK_HANDLERS } from '../../../src/engine/work-handlers.js';
import { pendingWork } from '../../../src/engine/work/queue.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { getEcf } from '../../../src/engine/ecf/queries.js';
import { buildApp } from '../../../src/http/app.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import type { ManualClock } from '../../../src/engine/clock.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';
import { afterEach } from 'vitest';

const running: RunningSandbox[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});

/** An engine pointed at a real sandbox over loopback, sharing one injected clock. */
export async function harness(options: { timeoutMs?: number } = {}) {
  const engine = await testEngine();
  const sandbox = await startSandbox({ clock: engine.clock });
  running.push(sandbox);
  await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
  await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
  await setSetting(engine, 'taxauth.timeout_ms', options.timeoutMs ?? 2000);
  const seeded = await seedIssuer(engine);
  await setSetting(engine, 'duplicates.mode', 'off', seeded.tenant.id);
  const app = await buildApp({ engine });
  let n = 0;
  const issue = async (payload: unknown = invoice31()) =>
    (await issueEcf(engine, seeded.tenant.id, { idempotencyKey: `h-${++n}`, payload })).ecf;
  return { engine, sandbox, app, issue, ...seeded, drive: (limit?: number) => drive(engine, engine.clock, limit) };
}

/**
 * Runs the work queue the way the job does, moving the injected clock to the
 * next due item whenever nothing is due, until the queue is empty.
 */
export async function drive(engine: Engine, clock: ManualClock, limit = 200): Promise<number> {
  let rounds = 0;
  for (; rounds < limit; rounds++) {
    const done = await runDueWork(engine, { owner: 'test-driver', handlers: WORK_HANDLERS, limit: 50 });
    if (done.length > 0) continue;
    const pending = await pendingWork(engine.db);
    if (pending.length === 0) return rounds;
    const next = Math.min(...pending.map((p) => Date.parse(p.dueAt)));
    clock.set(new Date(Math.max(next, clock.now().getTime())));
  }
  throw new Error(`the queue did not drain in ${limit} rounds`);
}

export const statusOf = async (engine: Engine, tenantId: string, id: string) => (await getEcf(engine, tenantId, id)).status;
