import { describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { listAttempts } from '../../../src/engine/submission/attempts.js';
import { retryEcf } from '../../../src/engine/submission/retry.js';
import { getEcf } from '../../../src/engine/ecf/queries.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { POLL_LADDER_MS, TRANSPORT_LADDER_MS } from '../../../src/engine/submission/rules.js';
import { harness } from './harness.js';
import { api } from '../../api.js';

const eventsOf = async (engine: Awaited<ReturnType<typeof harness>>['engine'], ecfId: string) =>
  (await listEvents(engine.db)).filter((e) => (e.data.object as { id?: string }).id === ecfId).map((e) => e.type);

describe('submission to the authority (the sandbox, over HTTP)', () => {
  it('signed → accepted: trackId, verdict, attempt, events', async () => {
    const h = await harness();
    const ecf = await h.issue();
    await h.drive();
    const after = await getEcf(h.engine, h.tenant.id, ecf.id);
    expect(after.status).toBe('accepted');
    expect(after.taxauth).toMatchObject({ statusCode: 1, status: 'Aceptado', sequenceUsed: true, messages: [] });
    expect(after.taxauth!.trackId).toEqual(expect.any(String));
    expect(after.taxauth!.submittedAt).toEqual(expect.stringMatching(/-04:00$|Z$/));
    const attempts = await listAttempts(h.engine, h.tenant.id, ecf.id);
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'accepted', statusCode: 1, trackId: after.taxauth!.trackId, xmlSha256: ecf.documentHash })]);
    expect(await eventsOf(h.engine, ecf.id)).toEqual(['ecf.submitted', 'ecf.accepted']);
    expect(h.sandbox.control.submissions({ encf: ecf.encf })).toHaveLength(1);
  });

  it('signed → accepted_conditional (4) and signed → rejected (2) with the sequence consumed, which retry refuses', async () => {
    const h = await harness();
    const a = await h.issue();
    const b = await h.issue();
    h.sandbox.control.script({ encf: a.encf, outcomes: [{ kind: 'conditional', messages: [{ code: 4001, value: 'Observación' }] }] });
    h.sandbox.control.script({ encf: b.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] }] });
    await h.drive();
    expect((await getEcf(h.engine, h.tenant.id, a.id)).status).toBe('accepted_conditional');
    expect(await eventsOf(h.engine, a.id)).toEqual(['ecf.submitted', 'ecf.accepted_conditional']);
    const rejected = await getEcf(h.engine, h.tenant.id, b.id);
    expect(rejected).toMatchObject({ status: 'rejected', taxauth: { statusCode: 2, sequenceUsed: true, messages: [{ code: 1999, value: 'Monto inválido' }] } });
    expect(await eventsOf(h.engine, b.id)).toEqual(['ecf.submitted', 'ecf.rejected']);
    await expect(retryEcf(h.engine, h.tenant.id, b.id)).rejects.toMatchObject({ code: 'Ecf.SequenceConsumed', kind: 'conflict' });
    const res = await api(h.app, h.keys).as('emisor').post(`/api/v1/ecf/${b.id}/retry`);
    expect(res.statusCode).toBe(409);
  });

  it('rejected with the sequence not consumed → retry (202, signed) → resent and accepted, with both cycles in the history', async () => {
    const h = await harness();
    const ecf = await h.issue();
    h.sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'reject', sequenceUsed: false, messages: [{ code: 1002, value: 'Firma inválida' }] }] });
    await h.drive();
    expect(await getEcf(h.engine, h.tenant.id, ecf.id)).toMatchObject({ status: 'rejected', taxauth: { sequenceUsed: false } });
    const res = await api(h.app, h.keys).as('emisor').post(`/api/v1/ecf/${ecf.id}/retry`);
    expect(res.statusCode).toBe(202);
    expect(res.json().status).toBe('signed');
    await h.drive();
    expect((await getEcf(h.engine, h.tenant.id, ecf.id)).status).toBe('accepted');
    const attempts = (await api(h.app, h.keys).as('consultor').get(`/api/v1/ecf/${ecf.id}/attempts`)).json();
    expect(attempts.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome])).toEqual([[1, 'rejected'], [2, 'accepted']]);
    expect(await eventsOf(h.engine, ecf.id)).toEqual(['ecf.submitted', 'ecf.rejected', 'ecf.submitted', 'ecf.accepted']);
  });

  it('resends the same XML by itself after a transient rejection, up to retry.max, then the rejection is final', async () => {
    const h = await harness();
    const ok = await h.issue();
    h.sandbox.control.script({ encf: ok.encf, outcomes: [{ kind: 'transientReject' }, { kind: 'accept' }] });
    await h.drive();
    const accepted = await getEcf(h.engine, h.tenant.id, ok.id);
    expect(accepted).toMatchObject({ status: 'accepted', retry: { count: 1, max: 3, nextAttemptAt: null } });
    const attempts = await listAttempts(h.engine, h.tenant.id, ok.id);
    expect(attempts.map((a) => [a.outcome, a.retryDecision, a.xmlSha256 === ok.documentHash])).toEqual([['rejected', 'auto:9001', true], ['accepted', undefined, true]]);
    expect(await eventsOf(h.engine, ok.id)).toEqual(['ecf.submitted', 'ecf.submitted', 'ecf.accepted']);

    await setSetting(h.engine, 'retry.max', 1, h.tenant.id);
    const bad = await h.issue();
    h.sandbox.control.script({ encf: bad.encf, outcomes: [{ kind: 'transientReject' }, { kind: 'transientReject' }] });
    await h.drive();
    expect(await getEcf(h.engine, h.tenant.id, bad.id)).toMatchObject({ status: 'rejected', retry: { count: 1, max: 1 } });
    expect((await listAttempts(h.engine, h.tenant.id, bad.id)).map((a) => a.retryDecision)).toEqual(['auto:9001', 'exhausted']);
    expect(await eventsOf(h.engine, bad.id)).toEqual(['ecf.submitted', 'ecf.submitted', 'ecf.rejected']);
  });

  it('follows the query ladder while the authority says "en proceso", and goes to review when it runs out; retry asks before resending', async () => {
    const h = await harness();
    const slow = await h.issue();
    const stuck = await h.issue();
    h.sandbox.control.script({ encf: slow.encf, outcomes: [{ kind: 'inProcess', queries: 3, then: { kind: 'accept' } }] });
    h.sandbox.control.script({ encf: stuck.encf, outcomes: [{ kind: 'inProcess', queries: POLL_LADDER_MS.length + 5, then: { kind: 'accept' } }] });
    const start = h.engine.clock.now().getTime();
    await h.drive();
    expect((await getEcf(h.engine, h.tenant.id, slow.id)).status).toBe('accepted');
    const review = await getEcf(h.engine, h.tenant.id, stuck.id);
    expect(review.status).toBe('review');
    expect(await eventsOf(h.engine, stuck.id)).toEqual(['ecf.submitted', 'ecf.review']);
    expect(h.engine.clock.now().getTime() - start).toBeGreaterThanOrEqual(POLL_LADDER_MS.reduce((a, b) => a + b, 0) - POLL_LADDER_MS[0]);
    await retryEcf(h.engine, h.tenant.id, stuck.id);
    await h.drive();
    expect((await getEcf(h.engine, h.tenant.id, stuck.id)).status).toBe('accepted');
    expect(h.sandbox.control.submissions({ encf: stuck.encf })).toHaveLength(1); // asked, found, no second send
  });

  it('after a lost response asks the authority what it has instead of sending again', async () => {
    const h = await harness();
    const ecf = await h.issue();
    h.sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'lostResponse' }, { kind: 'accept' }] });
    await h.drive();
    expect((await getEcf(h.engine, h.tenant.id, ecf.id)).status).toBe('accepted');
    expect(h.sandbox.control.submissions({ encf: ecf.encf })).toHaveLength(1);
    expect(await eventsOf(h.engine, ecf.id)).toEqual(['ecf.submitted', 'ecf.accepted']);
  });

  it('fails after the transport ladder when the authority stays unreachable; retry sends again', async () => {
    const h = await harness({ timeoutMs: 500 });
    const ecf = await h.issue();
    h.sandbox.control.setUnreachable(true);
    await h.drive();
    const failed = await getEcf(h.engine, h.tenant.id, ecf.id);
    expect(failed.status).toBe('failed');
    expect(await eventsOf(h.engine, ecf.id)).toEqual(['ecf.failed']);
    expect(await listAttempts(h.engine, h.tenant.id, ecf.id)).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    h.sandbox.control.setUnreachable(false);
    await retryEcf(h.engine, h.tenant.id, ecf.id);
    await h.drive();
    expect((await getEcf(h.engine, h.tenant.id, ecf.id)).status).toBe('accepted');
    void TRANSPORT_LADDER_MS;
  });

  it('treats 5xx and timeouts as transient and gets through when the authority recovers', async () => {
    const h = await harness({ timeoutMs: 500 });
    const a = await h.issue();
    const b = await h.issue();
    h.sandbox.control.script({ encf: a.encf, outcomes: [{ kind: 'http5xx' }, { kind: 'http5xx' }, { kind: 'accept' }] });
    h.sandbox.control.script({ encf: b.encf, outcomes: [{ kind: 'timeout', ms: 1500 }, { kind: 'accept' }] });
    await h.drive();
    expect((await getEcf(h.engine, h.tenant.id, a.id)).status).toBe('accepted');
    expect((await getEcf(h.engine, h.tenant.id, b.id)).status).toBe('accepted');
  });

  it('sends the RFCE of a type 32 under DOP 250,000 and records its synchronous verdict', async () => {
    const h = await harness();
    const ecf = await h.issue({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 2, unitPrice: '95.00' }] });
    await h.drive();
    const after = await getEcf(h.engine, h.tenant.id, ecf.id);
    expect(after).toMatchObject({ status: 'accepted', submitsRfce: true, taxauth: { statusCode: 1 } });
    expect(h.sandbox.control.submissions({ encf: ecf.encf })).toEqual([expect.objectContaining({ kind: 'rfce', trackId: null })]);
  });

  it('renews the token once on a 401 and never lets it out in a response', async () => {
    const h = await harness();
    const first = await h.issue();
    await h.drive();
    h.sandbox.control.revokeTokens();
    const second = await h.issue();
    await h.drive();
    expect((await getEcf(h.engine, h.tenant.id, second.id)).status).toBe('accepted');
    expect(h.sandbox.control.stats().tokensIssued).toBe(2);
    const bodies = [
      (await api(h.app, h.keys).as('admin_tenant').get(`/api/v1/ecf/${first.id}`)).body,
      (await api(h.app, h.keys).as('admin_tenant').get(`/api/v1/ecf/${second.id}/attempts`)).body,
      (await api(h.app, h.keys).as('admin_tenant').get('/api/v1/taxauth/connection')).body,
      JSON.stringify(await listEvents(h.engine.db)),
    ];
    for (const token of h.sandbox.control.issuedTokens()) for (const body of bodies) expect(body).not.toContain(token);
    expect(JSON.parse(bodies[2]!)).toMatchObject({ environment: 'test', ok: true, authenticated: true, error: null });
  });
});
