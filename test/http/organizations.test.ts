import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { addMember } from '../../src/engine/tenants/organizations.js';
import { listTenants } from '../../src/engine/tenants/tenants.js';
import { revokeApiKey } from '../../src/engine/tenants/api-keys.js';
import { nextRnc, organizationKey, seedOrganization, seedTenant, testEngine } from '../helpers.js';
import { api } from '../api.js';

async function setup(limits?: Record<string, number>) {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const { organization, owner } = await seedOrganization(engine, 'office', limits);
  const ownerKey = await organizationKey(engine, organization.id, owner.id);
  return { engine, app, organization, owner, ownerKey };
}

const post = (app: Awaited<ReturnType<typeof buildApp>>, orgId: string, key: string | undefined, payload: unknown) =>
  api(app).key(key).post(`/api/v1/organizations/${orgId}/tenants`, payload as Record<string, unknown>);

describe('POST /api/v1/organizations/{id}/tenants', () => {
  it('creates the tenant in the organization for its owner and its admin', async () => {
    const { engine, app, organization, ownerKey } = await setup();
    const rnc = nextRnc();
    const res = await post(app, organization.id, ownerKey, { rnc, legalName: 'Colmado La Esquina SRL', tradeName: 'La Esquina' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ organizationId: organization.id, rnc, legalName: 'Colmado La Esquina SRL', tradeName: 'La Esquina', defaultEnvironment: 'test' });
    engine.clock.advance(1000);
    const admin = await addMember(engine, organization.id, { name: 'Luis Gómez', role: 'admin' });
    const adminKey = await organizationKey(engine, organization.id, admin.id);
    const second = await post(app, organization.id, adminKey, { rnc: '40212345678', legalName: 'Juan Pérez' });
    expect(second.statusCode).toBe(201);
    expect(second.json().tradeName).toBeNull();
    expect((await listTenants(engine, { organizationId: organization.id })).map((t) => t.rnc)).toEqual([rnc, '40212345678']);
  });

  it('refuses tenant keys and other organizations’ keys with 403, and no key with 401', async () => {
    const { engine, app, organization } = await setup();
    const { keys } = await seedTenant(engine, { organizationId: organization.id });
    const other = await seedOrganization(engine);
    const otherKey = await organizationKey(engine, other.organization.id, other.owner.id);
    for (const key of [keys.admin_tenant, keys.emisor, keys.consultor, otherKey]) {
      const res = await post(app, organization.id, key, { rnc: nextRnc(), legalName: 'X SRL' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ status: 403, code: 'Auth.OrganizationManagerRequired' });
    }
    const none = await post(app, organization.id, undefined, { rnc: nextRnc(), legalName: 'X SRL' });
    expect(none.statusCode).toBe(401);
    expect(await listTenants(engine, { organizationId: organization.id })).toHaveLength(1);
  });

  it('answers 409 at the plan’s tenant cap and for an RNC already in the organization', async () => {
    const { engine, app, organization, ownerKey } = await setup({ maxTenants: 2 });
    const rnc = nextRnc();
    expect((await post(app, organization.id, ownerKey, { rnc, legalName: 'Uno SRL' })).statusCode).toBe(201);
    const dup = await post(app, organization.id, ownerKey, { rnc, legalName: 'Uno Otra Vez SRL' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ status: 409, code: 'Tenant.DuplicateRnc' });
    engine.clock.advance(1000);
    expect((await post(app, organization.id, ownerKey, { rnc: nextRnc(), legalName: 'Dos SRL' })).statusCode).toBe(201);
    const capped = await post(app, organization.id, ownerKey, { rnc: nextRnc(), legalName: 'Tres SRL' });
    expect(capped.statusCode).toBe(409);
    expect(capped.json()).toMatchObject({ code: 'Organization.TenantCapReached' });
    expect(capped.json().detail).toContain('2 tenant(s)');
    expect((await listTenants(engine, { organizationId: organization.id })).map((t) => t.legalName)).toEqual(['Uno SRL', 'Dos SRL']);
  });

  it('answers 400 with every invalid field and stores nothing', async () => {
    const { engine, app, organization, ownerKey } = await setup();
    const res = await post(app, organization.id, ownerKey, { rnc: '12-345', tradeName: 7, color: 'blue' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ status: 400, code: 'Validation.Failed', title: 'One or more fields are invalid.' });
    expect(Object.keys(body.errors).sort()).toEqual(['color', 'legalName', 'rnc', 'tradeName']);
    expect(body.errors.rnc).toEqual(['must be an RNC of 9 digits or a cédula of 11 digits, digits only']);
    expect(body.errors.legalName[0]).toMatch(/required/i);
    expect(await listTenants(engine)).toEqual([]);
  });

  it('answers 400 for a malformed organization id and 403 for a revoked owner key turned 401', async () => {
    const { engine, app, organization, ownerKey } = await setup();
    const bad = await post(app, 'not-a-uuid', ownerKey, { rnc: nextRnc(), legalName: 'X SRL' });
    expect(bad.statusCode).toBe(403); // the key names another organization before the id is even read
    await revokeApiKey(engine, ownerKey.slice(0, 16));
    const revoked = await post(app, organization.id, ownerKey, { rnc: nextRnc(), legalName: 'X SRL' });
    expect(revoked.statusCode).toBe(401);
  });
});
