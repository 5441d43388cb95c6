import { describe, expect, it } from 'vitest';
import { pauseEmission, resumeEmission, emissionState } from '../../../src/engine/limits/pause.js';
import { dryRunIssue } from '../../../src/engine/documents/dry-run.js';
import { getEcf } from '../../../src/engine/ecf/queries.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { buildApp } from '../../../src/http/app.js';
import { invoice31, seedIssuer, seedOrganization, testEngine } from '../../helpers.js';
import { eventsOf, issue } from './fixtures.js';
import { api } from '../../api.js';

const operator = { kind: 'operator' } as const;

async function setup() {
  const engine = await testEngine();
  const { organization } = await seedOrganization(engine);
  const a = await seedIssuer(engine, { organizationId: organization.id });
  const b = await seedIssuer(engine, { organizationId: organization.id });
  for (const t of [a, b]) await setSetting(engine, 'duplicates.mode', 'off', t.tenant.id);
  return { engine, organization, a, b };
}

describe('emission pause by the operator', () => {
  it('refuses new e-CF with 409 Ecf.EmissionPaused while stored ones, replays, validation and queries keep working', async () => {
    const { engine, a } = await setup();
    const before = await issueEcf(engine, a.tenant.id, { idempotencyKey: 'k-1', payload: invoice31() });
    await pauseEmission(engine, 'tenant', a.tenant.id, { reason: 'Pago pendiente', until: null }, operator);

    await expect(issue(engine, a.tenant.id)).rejects.toMatchObject({ kind: 'conflict', code: 'Ecf.EmissionPaused' });
    // The same key and body answers the stored e-CF; nothing new is numbered.
    expect(await issueEcf(engine, a.tenant.id, { idempotencyKey: 'k-1', payload: invoice31() })).toMatchObject({ created: false, ecf: { id: before.ecf.id } });
    expect((await getEcf(engine, a.tenant.id, before.ecf.id)).encf).toBe(before.ecf.encf);
    expect((await dryRunIssue(engine, a.tenant.id, invoice31())).valid).toBe(true);

    expect(await eventsOf(engine, 'tenant.emission')).toEqual([
      {
        type: 'tenant.emission_paused',
        tenantId: a.tenant.id,
        object: { tenantId: a.tenant.id, paused: true, reason: 'Pago pendiente', until: null, source: 'tenant', changedBy: 'operator', organizationId: a.tenant.organizationId },
      },
    ]);
    await resumeEmission(engine, 'tenant', a.tenant.id, { reason: 'Pago recibido' }, operator);
    expect((await issue(engine, a.tenant.id)).created).toBe(true);
    expect((await eventsOf(engine, 'tenant.emission')).map((e) => [e.type, e.object.paused, e.object.reason, e.object.source])).toEqual([
      ['tenant.emission_paused', true, 'Pago pendiente', 'tenant'],
      ['tenant.emission_resumed', false, 'Pago recibido', 'tenant'],
    ]);
  });

  it('changing only the reason or until emits nothing; resuming what is not paused emits nothing', async () => {
    const { engine, a } = await setup();
    await resumeEmission(engine, 'tenant', a.tenant.id, {}, operator);
    expect(await eventsOf(engine, 'tenant.emission')).toEqual([]);
    await pauseEmission(engine, 'tenant', a.tenant.id, { reason: 'uno' }, operator);
    await pauseEmission(engine, 'tenant', a.tenant.id, { reason: 'dos', until: '2026-03-20T08:00:00-04:00' }, operator);
    expect(await emissionState(engine, a.tenant.id)).toMatchObject({ paused: true, reason: 'dos', until: '2026-03-20T08:00:00.000-04:00', source: 'tenant' });
    expect((await eventsOf(engine, 'tenant.emission')).map((e) => [e.type, e.object.reason])).toEqual([['tenant.emission_paused', 'uno']]);
  });

  it('a pause ends by itself at until without an event; pausing after that is told again', async () => {
    const { engine, a } = await setup();
    await pauseEmission(engine, 'tenant', a.tenant.id, { reason: 'mantenimiento', until: '2026-03-10T12:00:00-04:00' }, operator); // now is 10:00 Dominican time
    expect((await eventsOf(engine, 'tenant.emission'))[0]!.object.until).toBe('2026-03-10T12:00:00.000-04:00');
    engine.clock.advance(2 * 3_600_000 - 1);
    await expect(issue(engine, a.tenant.id)).rejects.toMatchObject({ code: 'Ecf.EmissionPaused' });
    engine.clock.advance(1);
    expect((await issue(engine, a.tenant.id)).created).toBe(true);
    expect(await emissionState(engine, a.tenant.id)).toMatchObject({ paused: false, source: null });
    // Resuming a pause that already ended changes nothing.
    await resumeEmission(engine, 'tenant', a.tenant.id, {}, operator);
    expect((await eventsOf(engine, 'tenant.emission')).map((e) => e.type)).toEqual(['tenant.emission_paused']);
    await pauseEmission(engine, 'tenant', a.tenant.id, { reason: 'otra vez' }, operator);
    expect((await eventsOf(engine, 'tenant.emission')).map((e) => e.type)).toEqual(['tenant.emission_paused', 'tenant.emission_paused']);
  });

  it('refuses an until that is not in the future', async () => {
    const { engine, a } = await setup();
    await expect(pauseEmission(engine, 'tenant', a.tenant.id, { until: '2026-03-10T09:59:59-04:00' }, operator)).rejects.toMatchObject({
      kind: 'validation',
      errors: [expect.objectContaining({ path: 'until', code: 'Emission.UntilInPast' })],
    });
    expect(await eventsOf(engine, 'tenant.emission')).toEqual([]);
  });

  it("an organization's pause is told to each tenant whose state changes, with source organization", async () => {
    const { engine, organization, a, b } = await setup();
    await pauseEmission(engine, 'tenant', a.tenant.id, { reason: 'propio' }, operator);
    await pauseEmission(engine, 'organization', organization.id, { reason: 'factura vencida' }, operator);
    await expect(issue(engine, b.tenant.id)).rejects.toMatchObject({ code: 'Ecf.EmissionPaused' });
    // a was already paused: only b is told.
    expect((await eventsOf(engine, 'tenant.emission')).map((e) => [e.type, e.tenantId, e.object.source])).toEqual([
      ['tenant.emission_paused', a.tenant.id, 'tenant'],
      ['tenant.emission_paused', b.tenant.id, 'organization'],
    ]);
    expect((await eventsOf(engine, 'tenant.emission'))[1]!.object).toEqual({
      tenantId: b.tenant.id, paused: true, reason: 'factura vencida', until: null, source: 'organization', changedBy: 'operator', organizationId: organization.id,
    });
    // Lifting a's own pause while the organization's holds: a stays paused, nothing is told.
    await resumeEmission(engine, 'tenant', a.tenant.id, {}, operator);
    expect(await emissionState(engine, a.tenant.id)).toMatchObject({ paused: true, source: 'organization', reason: 'factura vencida' });
    await expect(issue(engine, a.tenant.id)).rejects.toMatchObject({ code: 'Ecf.EmissionPaused' });
    expect(await eventsOf(engine, 'tenant.emission')).toHaveLength(2);
    // Changing only the organization's reason: nothing.
    await pauseEmission(engine, 'organization', organization.id, { reason: 'factura vencida (2)' }, operator);
    expect(await eventsOf(engine, 'tenant.emission')).toHaveLength(2);
    await resumeEmission(engine, 'organization', organization.id, {}, operator);
    expect((await eventsOf(engine, 'tenant.emission')).slice(2).map((e) => [e.type, e.tenantId, e.object.source])).toEqual([
      ['tenant.emission_resumed', a.tenant.id, 'organization'],
      ['tenant.emission_resumed', b.tenant.id, 'organization'],
    ]);
    expect((await issue(engine, a.tenant.id)).created).toBe(true);
  });
});

describe('emission pause through the API (admin_tenant)', () => {
  it('pauses, refuses POST /ecf with a 409 problem, shows the state, resumes; an operator pause is not the tenant’s to lift', async () => {
    const { engine, a } = await setup();
    const app = await buildApp({ engine });
    const http = api(app, a.keys);

    const paused = await http.as('admin_tenant').post('/api/v1/emission/pause', { reason: 'Inventario' });
    expect(paused.statusCode).toBe(200);
    expect(paused.json()).toMatchObject({ tenantId: a.tenant.id, paused: true, source: 'tenant', reason: 'Inventario', changedBy: expect.stringMatching(/^api-key:/) });

    const refused = await http.as('emisor').post('/api/v1/ecf', invoice31(), { headers: { 'idempotency-key': 'x-1' } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ status: 409, code: 'Ecf.EmissionPaused' });
    const validated = await http.as('emisor').post('/api/v1/ecf/validate', invoice31());
    expect(validated.json().valid).toBe(true);
    expect((await http.as('consultor').get('/api/v1/emission')).json()).toMatchObject({ paused: true });
    expect((await http.as('emisor').post('/api/v1/emission/resume')).statusCode).toBe(403);

    const resumed = await http.as('admin_tenant').post('/api/v1/emission/resume');
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json()).toMatchObject({ paused: false, source: null });
    expect((await eventsOf(engine, 'tenant.emission')).map((e) => [e.type, e.object.changedBy])).toEqual([
      ['tenant.emission_paused', expect.stringMatching(/^api-key:/)],
      ['tenant.emission_resumed', expect.stringMatching(/^api-key:/)],
    ]);

    await pauseEmission(engine, 'tenant', a.tenant.id, { reason: 'Pago pendiente' }, operator);
    for (const url of ['/api/v1/emission/resume', '/api/v1/emission/pause']) {
      const res = await http.as('admin_tenant').post(url, {});
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('Emission.PausedByOperator');
    }
    expect(await emissionState(engine, a.tenant.id)).toMatchObject({ paused: true, reason: 'Pago pendiente', changedBy: 'operator' });

    // Every problem with the body in one 400 (on a tenant the operator has not paused).
    await resumeEmission(engine, 'tenant', a.tenant.id, {}, operator);
    const bad = await http.as('admin_tenant').post('/api/v1/emission/pause', { until: 'tomorrow', extra: 1 });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors).sort()).toEqual(['extra', 'until']);
    expect(await emissionState(engine, a.tenant.id)).toMatchObject({ paused: false });
  });
});
