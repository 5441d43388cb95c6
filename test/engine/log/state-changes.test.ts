import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { getEcf } from '../../../src/engine/ecf/queries.js';
import { annulSequences } from '../../../src/engine/sequences/annulments.js';
import { retryEcf } from '../../../src/engine/submission/retry.js';
import { drive, harness } from '../submission/harness.js';
import { invoice31, seedTenant, testEngine } from '../../helpers.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { deliverDueWebhooks } from '../../../src/engine/webhooks/delivery.js';
import { DELIVERY_LADDER_MS } from '../../../src/engine/webhooks/rules.js';
import { allowLoopback, emitEvent, startReceiver } from '../webhooks/harness.js';
import { capturing, changesOf } from './capture.js';

/**
 * The engine's logger port with a capturing logger: each change of state is
 * one info line, written after its transaction commits, carrying the tenant,
 * the e-NCF and, for submission work, which claim made it.
 */
describe('state changes in the engine log', () => {
  it('an e-CF the sandbox accepts logs signed, submitted and accepted once each, with tenant, e-NCF and attempt, and no secret', async () => {
    const h = await harness();
    const { engine, lines } = capturing(h.engine);
    const issued = (await issueEcf(engine, h.tenant.id, { idempotencyKey: 'logs-1', payload: invoice31() })).ecf;
    // A replay changes nothing, and logs nothing.
    await issueEcf(engine, h.tenant.id, { idempotencyKey: 'logs-1', payload: invoice31() });
    await drive(engine, h.engine.clock);
    expect((await getEcf(engine, h.tenant.id, issued.id)).status).toBe('accepted');

    const changes = changesOf(lines, 'ecf', issued.id);
    expect(changes.map((c) => [c.from, c.to])).toEqual([
      [null, 'signed'],
      ['signed', 'submitted'],
      ['submitted', 'accepted'],
    ]);
    for (const c of changes) expect(c).toMatchObject({ tenantId: h.tenant.id, encf: issued.encf, environment: 'test' });
    expect(changes[1]).toMatchObject({ attempt: 1, trackId: expect.any(String) });
    expect(changes[2]).toMatchObject({ attempt: expect.any(Number) });
    expect(lines.filter((l) => l.fields.stateChange).every((l) => l.level === 'info')).toBe(true);

    const text = JSON.stringify(lines);
    expect(text).not.toContain('clave-ñ'); // the certificate's password (seedIssuer)
    for (const key of Object.values(h.keys)) expect(text).not.toContain(key);
    for (const token of h.sandbox.control.issuedTokens()) expect(text).not.toContain(token);
  });

  it('a rejection and its retry, and an annulment, log each change once', async () => {
    const h = await harness();
    const { engine, lines } = capturing(h.engine);
    const issued = (await issueEcf(engine, h.tenant.id, { idempotencyKey: 'logs-2', payload: invoice31() })).ecf;
    h.sandbox.control.script({ encf: issued.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Rechazado por prueba' }], sequenceUsed: false }] });
    await drive(engine, h.engine.clock);
    expect((await getEcf(engine, h.tenant.id, issued.id)).status).toBe('rejected');
    await retryEcf(engine, h.tenant.id, issued.id);
    await drive(engine, h.engine.clock);
    expect(changesOf(lines, 'ecf', issued.id).map((c) => c.to)).toEqual(['signed', 'submitted', 'rejected', 'signed', 'submitted', 'accepted']);

    const annulment = await annulSequences(engine, h.tenant.id, { environment: 'test', reason: 'Cierre', lines: [{ type: 34, series: 'E', rangeFrom: 990, rangeTo: 1000 }] });
    const annulled = changesOf(lines, 'annulment', annulment.id);
    expect(annulled.map((c) => [c.from, c.to])).toEqual([
      [null, 'sending'],
      ['sending', annulment.status],
    ]);
    for (const c of annulled) expect(c).toMatchObject({ tenantId: h.tenant.id, encf: 'E340000000990', attempt: 1 });
  });

  it('a webhook delivery logs its failed attempt at warn and its delivery once at info, without the endpoint secret', async () => {
    const engine0 = await testEngine();
    const { engine, lines } = capturing(engine0);
    const { tenant } = await seedTenant(engine);
    await allowLoopback(engine);
    const receiver = await startReceiver((_request, index) => (index === 0 ? 500 : 200));
    try {
      const created = await createWebhook(engine, tenant.id, { url: receiver.url, events: ['ecf.*'] });
      await emitEvent(engine, tenant.id, 'ecf.accepted');
      await deliverDueWebhooks(engine);
      engine0.clock.advance(DELIVERY_LADDER_MS[0]! + 1);
      await deliverDueWebhooks(engine);
      const [delivery] = await engine.db.selectFrom('webhook_deliveries').select(['id', 'status']).execute();
      expect(delivery!.status).toBe('delivered');
      expect(changesOf(lines, 'delivery', delivery!.id)).toEqual([
        expect.objectContaining({ tenantId: tenant.id, from: 'pending', to: 'delivered', attempt: 2, eventType: 'ecf.accepted', statusCode: 200 }),
      ]);
      expect(lines.filter((l) => l.level === 'warn' && l.fields.deliveryId === delivery!.id)).toEqual([
        expect.objectContaining({ fields: expect.objectContaining({ attempt: 1, statusCode: 500 }) }),
      ]);
      expect(JSON.stringify(lines)).not.toContain(created.secret);
    } finally {
      await receiver.close();
    }
  });
});

