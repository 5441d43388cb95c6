import { describe, expect, it } from 'vitest';
import { runDueWork } from '../../../src/engine/work/run.js';
import { WORK_HANDLERS } from '../../../src/engine/work-handlers.js';
import { pendingWork } from '../../../src/engine/work/queue.js';
import { TRANSPORT_LADDER_MS } from '../../../src/engine/submission/rules.js';
import { api } from '../../api.js';
import { harness } from './harness.js';

/**
 * GET /ecf/{id}/sending reads an e-CF's sending state from where each part
 * lives (its row, its work item), as the job leaves it after each move.
 */
describe("an e-CF's sending state", () => {
  it('shows the next call and when, the failures in a row and the last error, then nothing once the verdict is in', async () => {
    const h = await harness();
    const ecf = await h.issue();
    const sending = async (role: 'consultor' | 'emisor' = 'consultor') => {
      const res = await api(h.app, h.keys).as(role).get(`/api/v1/ecf/${ecf.id}/sending`);
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    const step = async () => {
      const [item] = await pendingWork(h.engine.db);
      h.engine.clock.set(new Date(Math.max(Date.parse(item!.dueAt), h.engine.clock.now().getTime())));
      await runDueWork(h.engine, { owner: 'test-step', handlers: WORK_HANDLERS, limit: 1 });
    };

    expect(await sending()).toMatchObject({ id: ecf.id, encf: ecf.encf, status: 'signed', trackId: null, next: 'send', inFlight: false, failures: 0, busy: 0, polls: 0, lastError: null, retry: null });

    // The send's answer is lost: the next move asks whether it arrived, after the ladder's first rung.
    h.sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'lostResponse' }] });
    const before = h.engine.clock.now().getTime();
    await step();
    const unclear = await sending();
    expect(unclear).toMatchObject({ status: 'signed', next: 'ask', failures: 1, inFlight: false, trackId: null });
    expect(unclear.lastError).toEqual(expect.any(String));
    expect(Date.parse(unclear.dueAt)).toBe(before + TRANSPORT_LADDER_MS[0]);

    // Asked: the authority had it, so its trackId is followed, not sent again.
    await step();
    const polling = await sending();
    expect(polling).toMatchObject({ status: 'signed', next: 'poll', failures: 0, polls: 0, trackId: expect.any(String) });
    expect((await pendingWork(h.engine.db))[0]!.payload).toEqual({ phase: 'answered' });

    await step();
    expect(await sending('emisor')).toMatchObject({ status: 'accepted', next: null, dueAt: null, trackId: polling.trackId });
  });

  it('counts the verdict queries answered "still processing"', async () => {
    const h = await harness();
    const ecf = await h.issue();
    h.sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'inProcess', queries: 2, then: { kind: 'accept' } }] });
    const polls: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const [item] = await pendingWork(h.engine.db);
      if (!item) break;
      h.engine.clock.set(new Date(Math.max(Date.parse(item.dueAt), h.engine.clock.now().getTime())));
      await runDueWork(h.engine, { owner: 'test-step', handlers: WORK_HANDLERS, limit: 1 });
      const s = (await api(h.app, h.keys).as('consultor').get(`/api/v1/ecf/${ecf.id}/sending`)).json();
      polls.push([s.next, s.polls, s.status]);
    }
    expect(polls).toEqual([['poll', 0, 'signed'], ['poll', 1, 'signed'], ['poll', 2, 'signed'], [null, 0, 'accepted']]);
  });

  it('is 404 for an id the tenant has no e-CF under, as GET /ecf/{id} is', async () => {
    const h = await harness();
    const res = await api(h.app, h.keys).as('consultor').get('/api/v1/ecf/00000000-0000-4000-8000-000000000000/sending');
    expect(res.statusCode).toBe(404);
  });
});
