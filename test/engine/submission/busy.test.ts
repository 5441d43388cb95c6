import { describe, expect, it } from 'vitest';
import { setSetting } from '../../../src/engine/settings/settings.js';
import type { SendingState } from '../../../src/engine/submission/submit.js';
import type { OverloadStatus } from '../../../src/sandbox/index.js';
import { harness } from './harness.js';
import { driveBackground } from './pump-drive.js';

/**
 * The authority under load: the sandbox refuses requests beyond 8 in flight
 * with 429, 503 or both, while the engine would run 64 at a time. The busy
 * backoff runs on the injected clock, so the test does not wait it out.
 */
const COUNT = 80;

describe.each(['429', '503', 'mixed'] as OverloadStatus[])('submission against a sandbox that answers %s over 8 in flight', (overloadStatus) => {
  it('backs off and completes everything, each e-NCF sent exactly once, none failed, no unclear resends', async () => {
    // A generous client timeout: engine and sandbox share this thread, and a timeout (an unclear send) is not what this test is about.
    const h = await harness({ timeoutMs: 20_000 });
    await setSetting(h.engine, 'taxauth.concurrency', 64);
    // A little latency so requests overlap at the sandbox and the cap is reached.
    h.sandbox.control.setLoad({ maxInFlight: 8, overloadStatus, latency: { all: { delayMs: 15, jitterMs: 10 } } });
    const issued = [];
    for (let i = 0; i < COUNT; i++) issued.push(await h.issue());

    let unclear = 0;
    let backingOff = 0;
    const { errors, busy } = await driveBackground(h.engine, h.engine.clock, {
      afterRound: (pending) => {
        for (const item of pending) {
          const state = item.payload as SendingState;
          if (state.phase === 'unclear') unclear++;
          if ((state.busy ?? 0) > 0) backingOff++;
        }
      },
    });
    expect(errors).toEqual([]);
    // The pump heard the busy answers (and halved its bound for them).
    expect(busy).toBeGreaterThan(0);

    const stats = h.sandbox.control.stats();
    expect(stats.overloaded).toBeGreaterThan(0);
    expect(stats.maxInFlightSeen).toBeLessThanOrEqual(8);
    expect(backingOff).toBeGreaterThan(0);
    expect(unclear).toBe(0);

    const rows = await h.engine.db.selectFrom('ecf').select(['id', 'encf', 'status']).where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', h.tenant.id)).execute();
    expect(rows).toHaveLength(COUNT);
    expect(rows.filter((r) => r.status !== 'accepted')).toEqual([]);

    const sent = new Map<string, number>();
    for (const s of h.sandbox.control.submissions()) sent.set(s.encf, (sent.get(s.encf) ?? 0) + 1);
    expect(sent.size).toBe(COUNT);
    expect([...sent.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(new Set(issued.map((e) => e.encf))).toEqual(new Set(sent.keys()));

    // One attempt per e-CF, its verdict: no failed attempt, no automatic resend.
    const attempts = await h.engine.db.selectFrom('ecf_attempts').innerJoin('ecf', 'ecf.store_key', 'ecf_attempts.ecf_key').select(['ecf.id as ecf_id', 'outcome', 'retry_decision']).execute();
    expect(attempts).toHaveLength(COUNT);
    expect(attempts.every((a) => a.outcome === 'accepted' && a.retry_decision === null)).toBe(true);
    expect(new Set(attempts.map((a) => a.ecf_id)).size).toBe(COUNT);
  }, 120_000);
});
