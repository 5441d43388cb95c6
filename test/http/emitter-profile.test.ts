import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { seedTenant, testEngine } from '../helpers.js';

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
    const res = await app.inject({ method: 'GET', url: '/api/v1/emitter-profile', headers: { 'x-api-key': keys.admin_tenant } });
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
    const res = await app.inject({ method: 'GET', url: '/api/v1/emitter-profile', headers: { 'x-api-key': keys.admin_tenant } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code: 'EmitterProfile.Missing' });
  });
});

describe('PUT /api/v1/emitter-profile', () => {
  it('replaces every field and stamps updatedAt', async () => {
    const { app, keys, engine } = await setup();
    engine.clock.advance(60_000);
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/emitter-profile',
      headers: { 'x-api-key': keys.admin_tenant },
      payload: validBody,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ...validBody, updatedAt: '2026-03-10T10:01:00.000-04:00' });
    const again = await app.inject({ method: 'GET', url: '/api/v1/emitter-profile', headers: { 'x-api-key': keys.admin_tenant } });
    expect(again.json()).toMatchObject(validBody);
  });

  it('does not create a profile', async () => {
    const { app, keys } = await setup({ profile: false });
    const res = await app.inject({ method: 'PUT', url: '/api/v1/emitter-profile', headers: { 'x-api-key': keys.admin_tenant }, payload: validBody });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('EmitterProfile.Missing');
  });

  it('reports every invalid field at once and changes nothing', async () => {
    const { app, keys } = await setup();
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/emitter-profile',
      headers: { 'x-api-key': keys.admin_tenant },
      payload: { address: '', municipality: 'Santo Domingo', email: 'not-an-email', phones: ['8095551234', 'x', 'y', 'z'], extra: 1 },
    });
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

    const after = await app.inject({ method: 'GET', url: '/api/v1/emitter-profile', headers: { 'x-api-key': keys.admin_tenant } });
    expect(after.json()).toMatchObject({ address: 'Calle El Conde 12', updatedAt: null });
  });

  it('answers 400 with a problem for a body that is not JSON', async () => {
    const { app, keys } = await setup();
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/emitter-profile',
      headers: { 'x-api-key': keys.admin_tenant, 'content-type': 'application/json' },
      payload: '{"address": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'Http.CTP_INVALID_JSON_BODY' });
  });
});
