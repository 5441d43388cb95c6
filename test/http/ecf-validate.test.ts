import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { listEvents } from '../../src/engine/events/outbox.js';
import { seedTenant, testEngine } from '../helpers.js';
import { api } from '../api.js';

async function setup(options: { profile?: boolean } = {}) {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const seeded = await seedTenant(engine, options);
  const post = (payload: unknown, key = seeded.keys.emisor) =>
    api(app).key(key).post('/api/v1/ecf/validate', JSON.stringify(payload), { headers: { 'content-type': 'application/json' } });
  return { engine, app, post, ...seeded };
}

const invoice = {
  type: 31,
  incomeType: '01',
  payment: { condition: '1' },
  buyer: { rnc: '131880681', name: 'Constructora Ejemplo SRL' },
  lines: [
    { name: 'Cemento', quantity: 10, unitPrice: '350.00' },
    { name: 'Libro', quantity: '2', unitPrice: 650, taxTreatment: 'exempt' },
  ],
};

describe('POST /api/v1/ecf/validate', () => {
  it('previews totals and a sample e-NCF for a valid payload, storing nothing', async () => {
    const { post, engine } = await setup();
    const res = await post(invoice);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      preview: {
        type: 31,
        typeName: 'Factura de Crédito Fiscal Electrónica',
        encf: 'E310000000000',
        issueDate: '2026-03-10',
        submitsRfce: false,
        totals: { montoGravadoTotal: '3500.00', montoGravadoI1: '3500.00', montoExento: '1300.00', totalItbis: '630.00', totalItbis1: '630.00', montoTotal: '5430.00', valorPagar: '5430.00' },
        lines: [
          { number: 1, billingIndicator: 1, amount: '3500.00' },
          { number: 2, billingIndicator: 4, amount: '1300.00' },
        ],
        additionalTaxes: [],
      },
    });
    expect(await listEvents(engine.db)).toEqual([]);
    expect(await engine.db.selectFrom('work').selectAll().execute()).toEqual([]);
  });

  it('answers 200 with every problem, shape and per-type rules together, each with a path and a code', async () => {
    const { post } = await setup();
    const res = await post({ type: 31, buyer: { rnc: '12-3', name: 'X' }, lines: [{ name: '', quantity: -1, unitPrice: 'abc' }], encf: 'E310000000001' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.valid).toBe(false);
    expect(body.preview).toBeUndefined();
    const found = body.errors.map((e: { path: string; code: string }) => `${e.path} ${e.code}`);
    for (const expected of ['incomeType Ecf.FieldRequired', 'encf Ecf.FieldNotAllowed', 'lines[0].unitPrice Union']) {
      expect(found).toContain(expected);
    }
    expect(found.some((f: string) => f.startsWith('buyer.rnc '))).toBe(true);
    expect(found.some((f: string) => f.startsWith('lines[0].name '))).toBe(true);
    expect(found.some((f: string) => f.startsWith('lines[0].quantity '))).toBe(true);
    expect(body.errors.length).toBeGreaterThanOrEqual(6);
  });

  it('follows the tenant’s sequence mode and warns about declared totals beyond tolerance', async () => {
    const { post, engine, tenant } = await setup();
    await setSetting(engine, 'sequences.mode', 'external', tenant.id);
    const missing = await post(invoice);
    expect(missing.json().errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['encf', 'sequenceExpiresOn']));
    const ok = await post({ ...invoice, encf: 'E310000000077', sequenceExpiresOn: '2027-12-31', declaredTotals: { montoTotal: '5500.00' } });
    expect(ok.json().valid).toBe(true);
    expect(ok.json().warnings).toEqual([expect.objectContaining({ path: 'declaredTotals.montoTotal', code: 'Ecf.ToleranceExceeded' })]);
  });

  it('reports a body that is not an object as invalid, and a body that is not JSON as a 400 problem', async () => {
    const { post, app, keys } = await setup();
    const list = await post([1, 2]);
    expect(list.statusCode).toBe(200);
    expect(list.json().valid).toBe(false);
    const broken = await api(app, keys).as('emisor').post('/api/v1/ecf/validate', '{"type": 31,', { headers: { 'content-type': 'application/json' } });
    expect(broken.statusCode).toBe(400);
    expect(broken.headers['content-type']).toContain('application/problem+json');
  });

  it('needs the emitter profile: 400 problem without one', async () => {
    const { post } = await setup({ profile: false });
    const res = await post(invoice);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('EmitterProfile.Missing');
  });

  it('is open to admin_tenant and emisor, not consultor', async () => {
    const { post, keys } = await setup();
    expect((await post(invoice, keys.admin_tenant)).statusCode).toBe(200);
    expect((await post(invoice, keys.consultor)).statusCode).toBe(403);
  });
});
