import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { OPERATION_ROLES, type TenantOperation } from '../../src/engine/tenants/access.js';
import { TENANT_ROLES } from '../../src/engine/tenants/schemas.js';
import { revokeApiKey } from '../../src/engine/tenants/api-keys.js';
import { organizationKey, seedOrganization, seedTenant, testEngine } from '../helpers.js';
import { api } from '../api.js';

async function setup() {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const { organization, owner } = await seedOrganization(engine);
  const seeded = await seedTenant(engine, { organizationId: organization.id });
  const orgKey = await organizationKey(engine, organization.id, owner.id);
  return { engine, app, orgKey, ...seeded };
}

const fill = (url: string) => url.replace(/:[A-Za-z]+/g, () => randomUUID());

describe('the role table, for every tenant route that exists', () => {
  it('lets exactly the roles of the contract through and answers 403 problems to the others', async () => {
    const { app, keys, orgKey } = await setup();
    const tenantRoutes = app.routeAccess.filter(
      (r): r is { method: string; url: string; access: TenantOperation } => typeof r.access === 'string' && r.access !== 'public' && r.access !== 'receiver' && r.access !== 'receiver-auth',
    );
    expect(tenantRoutes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['GET /api/v1/emitter-profile', 'PUT /api/v1/emitter-profile']),
    );
    for (const route of tenantRoutes) {
      const allowed: readonly string[] = OPERATION_ROLES[route.access];
      for (const role of TENANT_ROLES) {
        const res = await api(app, keys).as(role).send(route.method as 'GET', fill(route.url));
        if (allowed.includes(role)) {
          expect([401, 403], `${role} on ${route.method} ${route.url}`).not.toContain(res.statusCode);
        } else {
          expect(res.statusCode, `${role} on ${route.method} ${route.url}`).toBe(403);
          expect(res.json()).toMatchObject({ status: 403, code: 'Auth.RoleNotAllowed', title: 'Forbidden' });
          expect(res.json().detail).toContain(allowed.join(', '));
        }
      }
      const withOrgKey = await api(app).key(orgKey).send(route.method as 'GET', fill(route.url));
      expect(withOrgKey.statusCode).toBe(403);
      expect(withOrgKey.json().code).toBe('Auth.TenantKeyRequired');
    }
  });

  it('publishes the same roles in the OpenAPI document', async () => {
    const { app } = await setup();
    const doc = (await api(app).get('/api/v1/openapi.json')).json();
    expect(doc.paths['/api/v1/emitter-profile'].get.description).toContain('Roles: admin_tenant.');
  });
});

describe('authentication problems', () => {
  it('answers 401 problems for a missing, malformed, unknown or revoked key, before reading the body', async () => {
    const { app, engine, keys } = await setup();
    const cases: [Record<string, string>, string][] = [
      [{}, 'Auth.MissingKey'],
      [{ 'x-api-key': 'hello' }, 'Auth.InvalidKey'],
      [{ 'x-api-key': `${keys.admin_tenant.slice(0, -4)}AAAA` }, 'Auth.InvalidKey'],
    ];
    for (const [headers, code] of cases) {
      const res = await api(app).put('/api/v1/emitter-profile', { nonsense: true }, { headers });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ status: 401, title: 'Unauthorized', code, instance: '/api/v1/emitter-profile' });
      expect(res.json().requestId).toBe(res.headers['x-request-id']);
    }
    await revokeApiKey(engine, keys.admin_tenant.slice(0, 16));
    const revoked = await api(app, keys).as('admin_tenant').get('/api/v1/emitter-profile');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().code).toBe('Auth.InvalidKey');
  });
});

describe('tenant isolation', () => {
  it('scopes every call to the key’s tenant, whatever the body says', async () => {
    const { app, engine, keys } = await setup();
    const other = await seedTenant(engine);
    const res = await api(app, keys).as('admin_tenant').put('/api/v1/emitter-profile', { address: 'Nueva dirección', municipality: null, province: null, email: null, economicActivity: null, phones: null });
    expect(res.statusCode).toBe(200);
    const mine = await api(app, keys).as('admin_tenant').get('/api/v1/emitter-profile');
    const theirs = await api(app, other.keys).as('admin_tenant').get('/api/v1/emitter-profile');
    expect(mine.json().address).toBe('Nueva dirección');
    expect(theirs.json()).toMatchObject({ tenantId: other.tenant.id, address: 'Calle El Conde 12' });
  });
});
