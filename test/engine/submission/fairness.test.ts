import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { POLL_LADDER_MS } from '../../../src/engine/submission/rules.js';
import { runBackgroundWork } from '../../../src/engine/background-work.js';
import { ringWorkBell } from '../../../src/engine/work/bell.js';
import { invoice31, seedIssuer, waitUntil } from '../../helpers.js';
import { harness } from './harness.js';
import { driveBackground } from './pump-drive.js';

/**
 * Fairness of the work pump with the real engine and the sandbox over HTTP:
 * tenant A's backlog is being drained at the authority's pace (latency on
 * reception and status queries, a small bound so the pump is saturated),
 * and neither tenant B's new e-CF nor A's own status queries wait behind
 * it. Positions are read from the sandbox's order of receipt and the event
 * log's order of commit, never from timings.
 */
const BACKLOG = 300;
const BOUND = 8;

describe('fair submission under a backlog', () => {
  it('sends tenant B’s new e-CF among the next few sends, and polls A’s sent e-CF while A’s sends continue', async () => {
    const h = await harness({ timeoutMs: 20_000 });
    const received = () => h.sandbox.control.submissions();
    await setSetting(h.engine, 'taxauth.concurrency', BOUND);
    // Sends all take the same 50 ms, so the sandbox receives them in the order the pump started them.
    h.sandbox.control.setLoad({ latency: { reception: { delayMs: 50, jitterMs: 0 }, status: { delayMs: 50, jitterMs: 10 } } });
    const b = await seedIssuer(h.engine);
    await setSetting(h.engine, 'duplicates.mode', 'off', b.tenant.id);
    // B has issued before, so its token is cached: its next send costs what each of A's does, and
    // the sandbox's order of receipt is the pump's order of starts, give or take the jitter.
    await issueEcf(h.engine, b.tenant.id, { idempotencyKey: 'b-0', payload: invoice31() });
    await driveBackground(h.engine, h.engine.clock);
    const warm = received().length;
    for (let i = 0; i < BACKLOG; i++) await h.issue();
    const t0 = h.engine.clock.now();

    const stop = new AbortController();
    const errors: unknown[] = [];
    const draining = runBackgroundWork(h.engine, { owner: 'fairness', signal: stop.signal, onError: (e) => errors.push(e) });
    try {
      await waitUntil(() => received().length >= warm + 16, 'A’s first sends');
      const late = (await issueEcf(h.engine, b.tenant.id, { idempotencyKey: 'b-1', payload: invoice31() })).ecf;
      // Committed (and the bell rung) just now.
      const before = received().length;
      await waitUntil(() => received().some((s) => s.encf === late.encf && s.rnc === b.tenant.rnc), 'B’s send to reach the sandbox');
      const position = received().findIndex((s) => s.encf === late.encf && s.rnc === b.tenant.rnc);
      // BOUND of A's sends were on their way when B committed; B's turn comes within the next few
      // starts: its lane is read at the next look (at most 10 ms after the ring), and slots that
      // free meanwhile still go to A's lanes (on PostgreSQL, seen: 3 more). Without turns it would
      // come after all of A's remaining sends (about 280).
      expect(position - before).toBeLessThanOrEqual(2 * BOUND);
      expect(received().filter((s) => s.rnc === h.tenant.rnc).length).toBeLessThan(BACKLOG / 2);

      // The first status queries of A's sent e-CF fall due while most of A's sends are still waiting.
      await waitUntil(() => received().length >= warm + 48, 'more of A’s sends');
      h.engine.clock.advance(POLL_LADDER_MS[0]);
      ringWorkBell();
      await waitUntil(() => received().length >= warm + BACKLOG + 1, 'every send', 120_000);
    } finally {
      stop.abort();
      await draining;
    }
    expect(errors).toEqual([]);
    await driveBackground(h.engine, h.engine.clock);

    const statuses = await h.engine.db.selectFrom('ecf').select('status').execute();
    expect(statuses.filter((s) => s.status !== 'accepted')).toEqual([]);
    expect(statuses).toHaveLength(BACKLOG + 2);

    // In the order of commit: each of A's e-CF sent before the clock moved was accepted before A's last send was recorded.
    const events = await listEvents(h.engine.db, { tenantId: h.tenant.id, limit: 10 * BACKLOG });
    const idOf = (e: (typeof events)[number]) => (e.data.object as { id: string }).id;
    const submitted = events.filter((e) => e.type === 'ecf.submitted');
    expect(submitted).toHaveLength(BACKLOG);
    const lastSend = submitted.at(-1)!.seq;
    const early = new Set(submitted.filter((e) => Date.parse(e.createdAt) === t0.getTime()).map(idOf));
    expect(early.size).toBeGreaterThanOrEqual(24);
    const acceptedEarly = events.filter((e) => e.type === 'ecf.accepted' && early.has(idOf(e)));
    expect(acceptedEarly).toHaveLength(early.size);
    expect(acceptedEarly.filter((e) => e.seq > lastSend)).toEqual([]);
  }, 180_000);
});
