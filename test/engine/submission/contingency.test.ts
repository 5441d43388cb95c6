import { describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { getEcf } from '../../../src/engine/ecf/queries.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { contingencyState, setContingency } from '../../../src/engine/submission/contingency.js';
import { runDueWork } from '../../../src/engine/work/run.js';
import { WORK_HANDLERS } from '../../../src/engine/work-handlers.js';
import { invoice31, seedTenant } from '../../helpers.js';
import { harness } from './harness.js';
import { api } from '../../api.js';

const contingencyEvents = async (engine: Awaited<ReturnType<typeof harness>>['engine']) =>
  (await listEvents(engine.db)).filter((e) => e.type.startsWith('contingency.')).map((e) => [e.type, e.tenantId, (e.data.object as { status: string }).status]);

describe('contingency', () => {
  it('starts by itself after the configured minutes of failures, marks e-CF signed meanwhile, tells every tenant, and ends when the authority answers', async () => {
    const h = await harness({ timeoutMs: 300 });
    const other = await seedTenant(h.engine);
    await setSetting(h.engine, 'contingency.after_minutes', 5);
    h.sandbox.control.setUnreachable(true);
    const first = await h.issue();
    const run = () => runDueWork(h.engine, { owner: 't', handlers: WORK_HANDLERS });
    await run(); // first failure: the clock starts
    expect((await contingencyState(h.engine.db)).active).toBe(false);
    h.engine.clock.advance(6 * 60_000);
    await run(); // still failing after 6 minutes
    expect(await contingencyState(h.engine.db)).toMatchObject({ active: true, source: 'automatic' });
    expect(await contingencyEvents(h.engine)).toEqual(
      expect.arrayContaining([
        ['contingency.activated', h.tenant.id, 'active'],
        ['contingency.activated', other.tenant.id, 'active'],
      ]),
    );
    const during = await h.issue(invoice31({ internalNumber: 'during' }));
    expect(during.signedDuringContingency).toBe(true);
    expect(first.signedDuringContingency).toBe(false);

    h.sandbox.control.setUnreachable(false);
    await h.drive();
    expect((await contingencyState(h.engine.db)).active).toBe(false);
    expect((await getEcf(h.engine, h.tenant.id, first.id)).status).toBe('accepted');
    expect((await getEcf(h.engine, h.tenant.id, during.id)).status).toBe('accepted');
    const kinds = (await contingencyEvents(h.engine)).map(([t]) => t);
    expect(kinds.filter((k) => k === 'contingency.activated')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'contingency.deactivated')).toHaveLength(2);
  });

  it('is switched by the operator, and a manual contingency does not end by itself', async () => {
    const h = await harness();
    await setContingency(h.engine, true);
    const ecf = await h.issue();
    expect(ecf.signedDuringContingency).toBe(true);
    await h.drive();
    expect(await contingencyState(h.engine.db)).toMatchObject({ active: true, source: 'manual' });
    await setContingency(h.engine, true); // no change, no event
    await setContingency(h.engine, false);
    expect((await contingencyEvents(h.engine)).map(([t]) => t)).toEqual(['contingency.activated', 'contingency.deactivated']);
  });
});

describe('waiting for the verdict when issuing', () => {
  it('answers with the verdict when the tenant waits for it, and with signed otherwise', async () => {
    const h = await harness();
    const post = (key: string) =>
      api(h.app, h.keys).as('emisor').post('/api/v1/ecf', invoice31({ internalNumber: key }), { headers: { 'idempotency-key': key } });
    expect((await post('no-wait')).json().status).toBe('signed');
    await setSetting(h.engine, 'issuing.wait_for_verdict_seconds', 5, h.tenant.id);
    const waited = await post('wait');
    expect(waited.statusCode).toBe(201);
    expect(waited.json()).toMatchObject({ status: 'accepted', taxauth: { statusCode: 1 } });
  });
});
