import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { seedTenant, testEngine } from '../helpers.js';
import { api } from '../api.js';

async function setup(options: { profile?: boolean } = {}) {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const seeded = await seedTenant(engine, options);
  return { engine, app, ...seeded };
}

const validBody = {
  address: 'Av. Winston Churchill 100',
  municipality: '010100',
  province: '010000',
  email: 'admin@ejemplo.do',
  economicActivity: 'Servicios contables',
  phones: ['809-555-0000', '829-555-1111'],
};

describe('GET /api/v1/emitter-profile', () => {
  it('returns the profile of the key’s tenant with times in Dominican time', async () => {
    const { app, keys, tenant } = await setup();
    const res = await api(app, keys).as('admin_tenant').get('/api/v1/emitter-profile');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      tenantId: tenant.id,
      address: 'Calle El Conde 12',
      phones: ['809-555-1234'],
      defaultEnvironment: 'test',
      updatedAt: null,
    });
    expect(body.createdAt).toBe('2026-03-10T10:00:00.000-04:00');
  });

  it('answers 400 with a problem when the operator has not created the profile', async () => {
    const { app, keys } = await setup({ profile: false });
    const res = await api(app, keys).as('admin_tenant').get('/api/v1/emitter-profile');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code: 'EmitterProfile.Missing' });
  });
});

describe('PUT /api/v1/emitter-profile', () => {
  it('replaces every field and stamps updatedAt', async () => {
    const { app, keys, engine } = await setup();
    engine.clock.advance(60_000);
    const res = await api(app, keys).as('admin_tenant').put('/api/v1/emitter-profile', validBody);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ...validBody, updatedAt: '2026-03-10T10:01:00.000-04:00' });
    const again = await api(app, keys).as('admin_tenant').get('/api/v1/emitter-profile');
    expect(again.json()).toMatchObject(validBody);
  });

  it('does not create a profile', async () => {
    const { app, keys } = await setup({ profile: false });
    const res = await api(app, keys).as('admin_tenant').put('/api/v1/emitter-profile', validBody);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('EmitterProfile.Missing');
  });

  it('reports every invalid field at once and changes nothing', async () => {
    const { app, keys } = await setup();
    const res = await api(app, keys).as('admin_tenant').put('/api/v1/emitter-profile', { address: '', municipality: 'Santo Domingo', email: 'not-an-email', phones: ['8095551234', 'x', 'y', 'z'], extra: 1 });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('Validation.Failed');
    expect(Object.keys(body.errors).sort()).toEqual(
      ['address', 'economicActivity', 'email', 'extra', 'municipality', 'phones', 'phones[0]', 'phones[1]', 'phones[2]', 'phones[3]', 'province'].sort(),
    );
    expect(body.errors.municipality[0]).toContain('six-digit municipality code');
    expect(body.errors.province[0]).toMatch(/required/i);
    expect(body.errors.phones[0]).toContain('at most 3');
    const paths = body.fieldErrors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`);
    expect(paths).toContain('province:ObjectRequiredProperty');
    expect(paths).toContain('extra:ObjectAdditionalProperties');

    const after = await api(app, keys).as('admin_tenant').get('/api/v1/emitter-profile');
    expect(after.json()).toMatchObject({ address: 'Calle El Conde 12', updatedAt: null });
  });

  it('refuses characters XML cannot carry in the address and the economic activity, naming the field, and changes nothing', async () => {
    const { app, keys } = await setup();
    // NUL, U+0001, U+000B, U+001F, U+FFFE, U+FFFF: each made every later e-CF of the tenant fail its schema.
    for (const bad of ['\u0000', '\u0001', '\u000B', '\u001F', '\uFFFE', '\uFFFF']) {
      const res = await api(app, keys)
        .as('admin_tenant')
        .put('/api/v1/emitter-profile', { ...validBody, address: `Calle${bad}El Conde 12`, economicActivity: `Servicios${bad}` });
      const label = `U+${bad.charCodeAt(0).toString(16).padStart(4, '0')}`;
      expect(res.statusCode, label).toBe(400);
      const body = res.json();
      expect(Object.keys(body.errors).sort(), label).toEqual(['address', 'economicActivity']);
      expect(body.errors.address[0], label).toContain('without control characters');
    }
    // Tab, line breaks and characters outside the BMP are XML text: taken.
    const fine = await api(app, keys).as('admin_tenant').put('/api/v1/emitter-profile', { ...validBody, economicActivity: 'Servicios\tcontables 📒' });
    expect(fine.statusCode).toBe(200);
    const after = await api(app, keys).as('admin_tenant').get('/api/v1/emitter-profile');
    expect(after.json()).toMatchObject({ ...validBody, economicActivity: 'Servicios\tcontables 📒' });
  });

  it('answers 400 with a problem for a body that is not JSON', async () => {
    const { app, keys } = await setup();
    const res = await api(app, keys).as('admin_tenant').put('/api/v1/emitter-profile', '{"address": ', { headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'Http.CTP_INVALID_JSON_BODY' });
  });

  it('takes back the exact body GET answers, edited (fetch, edit, save)', async () => {
    const { app, keys, engine } = await setup();
    const admin = api(app, keys).as('admin_tenant');
    const fetched = (await admin.get('/api/v1/emitter-profile')).json();
    engine.clock.advance(60_000);
    const saved = await admin.put('/api/v1/emitter-profile', { ...fetched, address: 'Av. Sarasota 5' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ id: fetched.id, address: 'Av. Sarasota 5', updatedAt: '2026-03-10T10:01:00.000-04:00', createdAt: fetched.createdAt });

    // Again from the new view, its times written in UTC: the same instants, so unchanged.
    const view = saved.json();
    const utc = { ...view, createdAt: new Date(view.createdAt).toISOString(), updatedAt: new Date(view.updatedAt).toISOString(), email: null };
    const again = await admin.put('/api/v1/emitter-profile', utc);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().email).toBeNull();
  });

  it('refuses a changed read-only field by name, with any other problem of the body, and changes nothing', async () => {
    const { app, keys, engine, tenant } = await setup();
    const admin = api(app, keys).as('admin_tenant');
    const fetched = (await admin.get('/api/v1/emitter-profile')).json();
    const put = (payload: unknown) => admin.put('/api/v1/emitter-profile', payload as object);

    for (const [field, value] of [
      ['id', '0194d2a8-0000-7000-8000-000000000000'],
      ['tenantId', '0194d2a8-0000-7000-8000-000000000001'],
      ['defaultEnvironment', 'production'],
      ['createdAt', '2026-03-10T10:00:01.000-04:00'],
      ['updatedAt', '2026-03-10T10:00:00.000-04:00'],
      ['id', 42],
      ['createdAt', 'not a time'],
    ] as const) {
      const res = await put({ ...fetched, address: 'Otra dirección 1', [field]: value });
      expect(res.statusCode, `${field}=${value}`).toBe(400);
      expect(res.json().fieldErrors, `${field}=${value}`).toEqual([{ path: field, code: 'EmitterProfile.ReadOnlyField', message: expect.stringContaining('is read-only') }]);
    }
    const several = await put({ ...fetched, tenantId: fetched.id, defaultEnvironment: 'cert', colour: 'blue', email: 'x' });
    expect(several.statusCode).toBe(400);
    expect(Object.keys(several.json().errors).sort()).toEqual(['colour', 'defaultEnvironment', 'email', 'tenantId']);

    // A copy older than the last save has another updatedAt: fetch again.
    engine.clock.advance(1000);
    expect((await put({ ...fetched, address: 'Primera 1' })).statusCode).toBe(200);
    const stale = await put({ ...fetched, address: 'Segunda 2' });
    expect(stale.statusCode).toBe(400);
    expect(Object.keys(stale.json().errors)).toEqual(['updatedAt']);

    const after = (await admin.get('/api/v1/emitter-profile')).json();
    expect(after).toMatchObject({ address: 'Primera 1', tenantId: tenant.id, defaultEnvironment: 'test' });
  });

  it('documents the read-only fields in the OpenAPI body', async () => {
    const { app } = await setup();
    const doc = (await api(app).get('/api/v1/openapi.json')).json();
    const body = doc.paths['/api/v1/emitter-profile'].put.requestBody.content['application/json'].schema;
    for (const field of ['id', 'tenantId', 'defaultEnvironment', 'createdAt']) expect(body.properties[field].readOnly, field).toBe(true);
    expect(body.required.sort()).toEqual(['address', 'economicActivity', 'email', 'municipality', 'phones', 'province']);
    expect(body.additionalProperties).toBe(false);
  });
});
