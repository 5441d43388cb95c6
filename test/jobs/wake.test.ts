import { describe, expect, it } from 'vitest';
import { getEcf } from '../../src/engine/ecf/queries.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { POLL_LADDER_MS } from '../../src/engine/submission/rules.js';
import { startBackgroundWork } from '../../src/engine/background-work.js';
import { ringWorkBell } from '../../src/engine/work/bell.js';
import { pendingWork } from '../../src/engine/work/queue.js';
import { DEFAULT_JOBS, startScheduler } from '../../src/jobs/scheduler.js';
import { harness } from '../engine/submission/harness.js';
import { waitUntil } from '../helpers.js';

/**
 * Prompt start the way `ecf serve` runs its background work
 * (startBackgroundWork beside the periodic jobs' scheduler): the pump polls
 * once in ten minutes here, so only the ring of an e-CF's commit can start
 * its submission within the test's patience.
 */
const TEN_MINUTES = 10 * 60_000;

describe('background work as ecf serve runs it', () => {
  it('starts a new e-CF’s submission on its commit’s ring, and takes it to its verdict', async () => {
    const h = await harness();
    const work = await startBackgroundWork(h.engine, { pollMs: TEN_MINUTES });
    try {
      const ecf = await h.issue();
      await waitUntil(() => h.sandbox.control.submissions({ encf: ecf.encf }).length === 1, 'the send to reach the sandbox', 20_000);
      await waitUntil(async () => (await pendingWork(h.engine.db)).some((w) => (w.payload as { phase?: string }).phase === 'answered' && w.leaseOwner === null), 'the send to be recorded');

      // The status query falls due on the engine's clock; the bell stands in for the pump's next poll.
      h.engine.clock.advance(POLL_LADDER_MS[0]);
      ringWorkBell();
      await waitUntil(async () => (await getEcf(h.engine, h.tenant.id, ecf.id)).status === 'accepted', 'the verdict', 20_000);
      expect(h.sandbox.control.submissions({ encf: ecf.encf })).toHaveLength(1);
    } finally {
      await work.stop();
    }
    expect(await pendingWork(h.engine.db)).toEqual([]);
  });

  it('stops at once right after starting, beside the scheduler of the periodic jobs', async () => {
    const h = await harness();
    const work = await startBackgroundWork(h.engine, { pollMs: TEN_MINUTES });
    const scheduler = await startScheduler({ dataDir: h.engine.dataDir, jobs: DEFAULT_JOBS });
    const [stats] = await Promise.all([work.stop(), scheduler.stop()]);
    expect(stats).toEqual({ performed: 0, busy: 0, failed: 0 });
  });

  it('on stop, lets a send in flight end and records it before returning', async () => {
    const h = await harness({ timeoutMs: 10_000 });
    h.sandbox.control.setLoad({ latency: { reception: { delayMs: 300, jitterMs: 0 } } });
    await setSetting(h.engine, 'taxauth.concurrency', 4);
    const work = await startBackgroundWork(h.engine, { pollMs: TEN_MINUTES });
    const ecf = await h.issue();
    await waitUntil(() => h.sandbox.control.inFlight() > 0, 'the send to be on its way', 20_000);
    const stats = await work.stop();
    expect(stats).toMatchObject({ performed: 1, failed: 0 });
    expect(h.sandbox.control.submissions({ encf: ecf.encf })).toHaveLength(1);
    const [item] = await pendingWork(h.engine.db);
    expect(item).toMatchObject({ ref: ecf.id, leaseOwner: null, payload: { phase: 'answered' } });
    expect((await getEcf(h.engine, h.tenant.id, ecf.id)).taxauth?.trackId).toEqual(h.sandbox.control.submissions({ encf: ecf.encf })[0]!.trackId);
  });
});
