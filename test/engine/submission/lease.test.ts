// A call slower than the work item's lease must not be made twice: found by the concurrent crash
// test, where one pump claimed its own in-flight send again once the lease ran out, asked the
// authority before the first send had arrived, and sent again.
import { describe, expect, it } from 'vitest';
import { getEcf } from '../../../src/engine/ecf/queries.js';
import { runBackgroundWork } from '../../../src/engine/background-work.js';
import { ringWorkBell } from '../../../src/engine/work/bell.js';
import { claim, complete, leaseOwnerName, reschedule } from '../../../src/engine/work/queue.js';
import { DEFAULT_LEASE_MS } from '../../../src/engine/work/run.js';
import { SUBMIT_KIND } from '../../../src/engine/submission/submit.js';
import { waitUntil } from '../../helpers.js';
import { harness } from './harness.js';

describe('leases of work in flight', () => {
  it('a send still waiting for its answer when the lease runs out is not sent again by the same pump', async () => {
    const h = await harness({ timeoutMs: 10_000 });
    const ecf = await h.issue();
    h.sandbox.control.setLoad({ latency: { reception: { delayMs: 1500, jitterMs: 0 } } });
    const stop = new AbortController();
    const pumping = runBackgroundWork(h.engine, { signal: stop.signal, pollMs: 20 });
    try {
      await waitUntil(() => h.sandbox.control.inFlight() > 0, 'the send in flight');
      h.engine.clock.advance(DEFAULT_LEASE_MS + 1_000);
      ringWorkBell();
      await waitUntil(() => h.sandbox.control.submissions({ encf: ecf.encf }).length >= 1, 'the reception');
      // The status query comes a second after the send's answer is recorded, on the engine's clock.
      await waitUntil(async () => {
        h.engine.clock.advance(1_000);
        ringWorkBell();
        return (await getEcf(h.engine, h.tenant.id, ecf.id)).status === 'accepted';
      }, 'the verdict');
    } finally {
      stop.abort();
      await pumping;
    }
    expect(h.sandbox.control.submissions({ encf: ecf.encf })).toHaveLength(1);
    const events = await h.engine.db.selectFrom('events').select('type').where('type', 'like', 'ecf.%').execute();
    expect(events.map((e) => e.type).sort()).toEqual(['ecf.accepted', 'ecf.submitted']);
  });

  it('a claim that was lost (claimed again after its lease ran out) can neither complete nor reschedule the item', async () => {
    const h = await harness();
    await h.issue();
    const owner = leaseOwnerName('test');
    const [first] = await claim(h.engine.db, h.engine.clock.now(), { kinds: [SUBMIT_KIND], owner, leaseMs: 1_000, limit: 1 });
    h.engine.clock.advance(2_000);
    // The same owner name claims it again: only the count of claims tells the two apart.
    const [second] = await claim(h.engine.db, h.engine.clock.now(), { kinds: [SUBMIT_KIND], owner, leaseMs: 1_000, limit: 1 });
    expect(second!.id).toBe(first!.id);
    expect(await complete(h.engine.db, first!, owner)).toBe(false);
    expect(await reschedule(h.engine.db, h.engine.clock.now(), first!, owner, { dueAt: h.engine.clock.now() })).toBe(false);
    expect(await complete(h.engine.db, second!, owner)).toBe(true);
  });
});
