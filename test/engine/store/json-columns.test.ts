import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { retryOf, taxauthOf } from '../../../src/engine/ecf/views.js';
import { closingDataOf } from '../../../src/engine/journal/closing-data.js';
import { getCertification, startCertification } from '../../../src/engine/certification/state.js';
import { getEmitterProfile } from '../../../src/engine/tenants/emitter-profile.js';
import { createWebhook, getWebhook, listWebhooks } from '../../../src/engine/webhooks/endpoints.js';
import { seedTenant, testEngine } from '../../helpers.js';
import { emitEvent } from '../webhooks/harness.js';
import { damaged, expectNames } from './damaged-column.js';

const HOOK = 'https://93.184.216.34/hooks/ecf';

describe('JSON columns are read through their schema', () => {
  it('a webhook endpoint whose events are damaged names webhook_endpoints.events, on the views and on the fan-out', async () => {
    const engine: Engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const created = (await createWebhook(engine, tenant.id, { url: HOOK, events: ['ecf.*'] })).endpoint;
    expect((await getWebhook(engine, tenant.id, created.id)).events).toEqual(['ecf.*']);

    await engine.db.updateTable('webhook_endpoints').set({ events: '{"ecf.*":true}' }).where('id', '=', created.id).execute();
    for (const read of [() => getWebhook(engine, tenant.id, created.id), () => listWebhooks(engine, tenant.id), () => emitEvent(engine, tenant.id, 'ecf.accepted')]) {
      expectNames(await damaged(read), 'webhook_endpoints.events', 'the value Expected array');
    }
    await engine.db.updateTable('webhook_endpoints').set({ events: '["ecf.*", 7]' }).where('id', '=', created.id).execute();
    expectNames(await damaged(() => getWebhook(engine, tenant.id, created.id)), 'webhook_endpoints.events', '[1]');
  });

  it("a profile's phones that are not JSON name emitter_profiles.phones", async () => {
    const engine: Engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await engine.db.updateTable('emitter_profiles').set({ phones: '809-555-0101' }).where('tenant_id', '=', tenant.id).execute();
    expectNames(await damaged(() => getEmitterProfile(engine, tenant.id)), 'emitter_profiles.phones', 'not JSON');
  });

  it("a certification's pasos with an unknown state or Paso name certifications.pasos", async () => {
    const engine: Engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await startCertification(engine, tenant.id);
    expect((await getCertification(engine, tenant.id))!.pasos[1]).toEqual({ state: 'pending', at: null });

    await engine.db.updateTable('certifications').set({ pasos: '{"1":{"state":"finished","at":null}}' }).where('tenant_id', '=', tenant.id).execute();
    expectNames(await damaged(() => getCertification(engine, tenant.id)), 'certifications.pasos', '[1].state');
    await engine.db.updateTable('certifications').set({ pasos: '{"15":{"state":"done","at":null}}' }).where('tenant_id', '=', tenant.id).execute();
    expectNames(await damaged(() => getCertification(engine, tenant.id)), 'certifications.pasos', '');
  });

  it("an e-CF's taxauth and retry columns read back, and name ecf.taxauth and ecf.retry when damaged", async () => {
    // Short keys and instants as milliseconds (migration 0020) expand to the view.
    expect(taxauthOf('{"t":"trk-1","s":"Aceptado","c":1,"b":1773151200000}')).toEqual({ trackId: 'trk-1', status: 'Aceptado', statusCode: 1, submittedAt: '2026-03-10T14:00:00.000Z' });
    expect(taxauthOf(null)).toBeNull();
    expect(retryOf('{"count":1,"max":3,"nextAttemptAt":null}')).toEqual({ count: 1, max: 3, nextAttemptAt: null });
    expect(retryOf(null)).toBeNull();

    expectNames(await damaged(() => taxauthOf('{"t":"trk-1","c":"one"}')), 'ecf.taxauth', 'statusCode');
    expectNames(await damaged(() => taxauthOf('[1,2]')), 'ecf.taxauth', 'the value');
    expectNames(await damaged(() => retryOf('{"count":"1","max":3,"nextAttemptAt":null}')), 'ecf.retry', 'count');
    expectNames(await damaged(() => retryOf('{"count":1,')), 'ecf.retry', 'not JSON');
  });

  it('a closing entry whose data does not fit names journal.data and the entry', async () => {
    const closing = { v: 1, kind: 'day', period: '2026-03-09', from: 0, to: 1, issued: [], perpetual: [], lockedHead: { seq: 4, hash: 'ab' }, previous: { day: null, month: null }, certificate: null, signature: null };
    expect(closingDataOf(JSON.stringify(closing), 5)).toEqual(closing);
    const { lockedHead: _dropped, ...headless } = closing;
    expectNames(await damaged(() => closingDataOf(JSON.stringify(headless), 5)), 'journal.data of closing entry 5', 'lockedHead is required');
    expectNames(await damaged(() => closingDataOf(null, 7)), 'journal.data of closing entry 7', 'the value');
  });
});
