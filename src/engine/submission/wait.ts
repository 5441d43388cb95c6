import type { Engine } from '../engine-types.js';
import { getEcf } from '../ecf/queries.js';
import type { EcfView } from '../ecf/views.js';
import { claimRef, leaseOwnerName, reschedule } from '../work/queue.js';
import { DEFAULT_LEASE_MS } from '../work/run.js';
import { FINAL_STATES } from './rules.js';
import { SUBMIT_KIND, submitHandler } from './submit.js';

const QUERY_PAUSE_MS = 250;

/**
 * The time waiting for a verdict runs on: the real clock here; a test passes one that moves its
 * injected clock (ManualClock), so the pauses between queries cost it no real time.
 */
export interface Pace {
  /** Now, in ms since the epoch. */
  now(): number;
  pause(ms: number): Promise<void>;
}

export const realPace: Pace = { now: () => Date.now(), pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * For tenants that set `issuing.wait_for_verdict_seconds`: submits the e-CF
 * now, in this process, and asks for the verdict every quarter second (the
 * authority validates in about 200 ms), until it is final or the time is up.
 * Whatever is not settled by then the background job carries on as usual.
 */
export async function waitForVerdict(engine: Engine, tenantId: string, ecfId: string, seconds: number, pace: Pace = realPace): Promise<EcfView> {
  const deadline = pace.now() + seconds * 1000;
  const owner = leaseOwnerName('wait');
  for (;;) {
    const item = await claimRef(engine.db, engine.clock.now(), SUBMIT_KIND, ecfId, owner, DEFAULT_LEASE_MS);
    if (item) {
      const outcome = await submitHandler(engine, item).catch((e: unknown) => ({ retryAt: engine.clock.now(), error: String(e) }));
      if ('retryAt' in outcome) await reschedule(engine.db, engine.clock.now(), item, owner, { dueAt: outcome.retryAt, error: outcome.error });
    }
    const ecf = await getEcf(engine, tenantId, ecfId);
    if (FINAL_STATES.has(ecf.status) || pace.now() + QUERY_PAUSE_MS > deadline) return ecf;
    const pending = await engine.db.selectFrom('work').select('id').where('kind', '=', SUBMIT_KIND).where('ref', '=', ecfId).executeTakeFirst();
    if (!pending) return ecf;
    await pace.pause(QUERY_PAUSE_MS);
  }
}
