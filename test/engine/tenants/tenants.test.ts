import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { EngineError, ValidationError } from '../../../src/engine/errors.js';
import {
  getEmitterProfile,
  replaceEmitterProfile,
  setEmitterProfile,
} from '../../../src/engine/tenants/emitter-profile.js';
import {
  addMember,
  createOrganization,
  getOrganization,
  listMembers,
} from '../../../src/engine/tenants/organizations.js';
import { attachTenant, createTenant, findTenant, listTenants } from '../../../src/engine/tenants/tenants.js';
import { nextRnc, seedOrganization, testEngine } from '../../helpers.js';

async function thrown<E extends Error>(work: () => Promise<unknown>, type: new (...a: never[]) => E): Promise<E> {
  try {
    await work();
  } catch (e) {
    expect(e).toBeInstanceOf(type);
    return e as E;
  }
  throw new Error('expected an error, nothing was thrown');
}

const tenantCount = async (engine: Engine) =>
  Number((await engine.db.selectFrom('tenants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

const tenantInput = (rnc = nextRnc(), organizationId?: string) => ({
  rnc,
  legalName: 'Distribuidora Cibao SRL',
  ...(organizationId && { organizationId }),
});

describe('tenants', () => {
  it('accepts an RNC of 9 digits or a cédula of 11', async () => {
    const engine = await testEngine();
    const nine = await createTenant(engine, { rnc: '131246753', legalName: '  Empresa Nueve SRL  ', tradeName: 'Nueve' });
    expect(nine).toMatchObject({
      rnc: '131246753',
      legalName: 'Empresa Nueve SRL',
      tradeName: 'Nueve',
      organizationId: null,
      defaultEnvironment: 'test',
      createdAt: '2026-03-10T10:00:00.000-04:00',
      updatedAt: null,
    });
    engine.clock.advance(1000); // tenants list oldest first
    const eleven = await createTenant(engine, { rnc: '00114272360', legalName: 'Juan Pérez', defaultEnvironment: 'cert' });
    expect(eleven).toMatchObject({ rnc: '00114272360', tradeName: null, defaultEnvironment: 'cert' });
    expect((await listTenants(engine)).map((t) => t.rnc)).toEqual(['131246753', '00114272360']);
  });

  it('rejects other RNCs on path rnc with StringPattern', async () => {
    const engine = await testEngine();
    for (const rnc of ['1312467530', '13124675', '001142723601', '13124675a', 'abcdefghi', '131-24675-3', '001-1427236-0', '', ' 131246753', '１３１２４６７５３']) {
      const err = await thrown(() => createTenant(engine, { rnc, legalName: 'Empresa SRL' }), ValidationError);
      expect(err.code).toBe('Validation.Failed');
      expect(err.errors.map((e) => [e.path, e.code]), JSON.stringify(rnc)).toEqual([['rnc', 'StringPattern']]);
      expect(err.errors[0]!.message).toMatch(/9 digits/);
    }
    const wrongType = await thrown(() => createTenant(engine, { rnc: 131246753, legalName: 'Empresa SRL' }), ValidationError);
    expect(wrongType.errors.map((e) => e.path)).toEqual(['rnc']);
    expect(await tenantCount(engine)).toBe(0);
  });

  it('reports every bad field at once', async () => {
    const engine = await testEngine();
    const err = await thrown(
      () =>
        createTenant(engine, {
          rnc: '12345',
          legalName: '   ',
          tradeName: '',
          defaultEnvironment: 'prod',
          organizationId: 'not-a-uuid',
          extra: true,
        }),
      ValidationError,
    );
    const byPath = Object.fromEntries(err.errors.map((e) => [e.path, e.code]));
    expect(byPath).toEqual({
      rnc: 'StringPattern',
      legalName: 'StringPattern',
      tradeName: 'StringMinLength',
      defaultEnvironment: 'Union',
      organizationId: 'StringFormat',
      extra: 'ObjectAdditionalProperties',
    });
    const missing = await thrown(() => createTenant(engine, {}), ValidationError);
    expect(missing.errors.map((e) => [e.path, e.code])).toEqual([
      ['rnc', 'ObjectRequiredProperty'],
      ['legalName', 'ObjectRequiredProperty'],
    ]);
    expect(await tenantCount(engine)).toBe(0);
  });

  it("stops at the organization's tenant cap and inserts nothing", async () => {
    const engine = await testEngine();
    const { organization } = await seedOrganization(engine, 'office', { maxTenants: 2 });
    expect(organization.limits.maxTenants).toBe(2);
    await createTenant(engine, tenantInput(undefined, organization.id));
    await createTenant(engine, tenantInput(undefined, organization.id));
    const rnc = nextRnc();
    const err = await thrown(() => createTenant(engine, tenantInput(rnc, organization.id)), EngineError);
    expect(err.code).toBe('Organization.TenantCapReached');
    expect(err.kind).toBe('conflict');
    expect(await tenantCount(engine)).toBe(2);
    expect((await getOrganization(engine, organization.id)).tenantCount).toBe(2);
    expect((await engine.db.selectFrom('tenants').select('id').where('rnc', '=', rnc).execute())).toEqual([]);

    // Outside the organization the same RNC is fine: the cap is the organization's.
    await createTenant(engine, tenantInput(rnc));
    expect(await tenantCount(engine)).toBe(3);

    const unknownOrg = await thrown(
      () => createTenant(engine, tenantInput(undefined, '00000000-0000-4000-8000-000000000000')),
      EngineError,
    );
    expect(unknownOrg.code).toBe('Organization.NotFound');
  });

  it('allows an RNC once per organization, and again in another organization', async () => {
    const engine = await testEngine();
    const one = (await seedOrganization(engine)).organization;
    const two = (await seedOrganization(engine)).organization;
    const rnc = nextRnc();
    const first = await createTenant(engine, tenantInput(rnc, one.id));
    expect(first.organizationId).toBe(one.id);

    const dup = await thrown(() => createTenant(engine, tenantInput(rnc, one.id)), EngineError);
    expect(dup.code).toBe('Tenant.DuplicateRnc');
    expect(dup.kind).toBe('conflict');
    expect(await tenantCount(engine)).toBe(1);

    const elsewhere = await createTenant(engine, tenantInput(rnc, two.id));
    expect(elsewhere.organizationId).toBe(two.id);
    const standalone = await createTenant(engine, tenantInput(rnc));
    expect(standalone.organizationId).toBeNull();
    // Outside any organization counts as one group too.
    const dupStandalone = await thrown(() => createTenant(engine, tenantInput(rnc)), EngineError);
    expect(dupStandalone.code).toBe('Tenant.DuplicateRnc');
    expect(await tenantCount(engine)).toBe(3);
  });

  it('attaches a tenant to an organization within the cap and the RNC rule', async () => {
    const engine = await testEngine();
    const { organization } = await seedOrganization(engine, 'office', { maxTenants: 2 });
    const inside = await createTenant(engine, tenantInput(undefined, organization.id));
    const loose = await createTenant(engine, tenantInput());
    const sameRnc = await createTenant(engine, tenantInput(inside.rnc));

    const dup = await thrown(() => attachTenant(engine, sameRnc.id, organization.id), EngineError);
    expect(dup.code).toBe('Tenant.DuplicateRnc');
    expect((await findTenant(engine, sameRnc.id)).organizationId).toBeNull();

    engine.clock.advance(1000);
    const attached = await attachTenant(engine, loose.id, organization.id);
    expect(attached).toMatchObject({ id: loose.id, organizationId: organization.id, updatedAt: '2026-03-10T10:00:01.000-04:00' });
    // Attaching to the organization it is already in changes nothing, even at the cap.
    expect(await attachTenant(engine, loose.id, organization.id)).toEqual(attached);

    const another = await createTenant(engine, tenantInput());
    const cap = await thrown(() => attachTenant(engine, another.id, organization.id), EngineError);
    expect(cap.code).toBe('Organization.TenantCapReached');
    expect((await findTenant(engine, another.id)).organizationId).toBeNull();
    expect((await listTenants(engine, { organizationId: organization.id })).map((t) => t.id).sort()).toEqual(
      [inside.id, loose.id].sort(),
    );

    const unknownTenant = await thrown(() => attachTenant(engine, '00000000-0000-4000-8000-000000000000', organization.id), EngineError);
    expect(unknownTenant.code).toBe('Tenant.NotFound');
    const unknownOrg = await thrown(() => attachTenant(engine, another.id, '00000000-0000-4000-8000-000000000000'), EngineError);
    expect(unknownOrg.code).toBe('Organization.NotFound');
  });

  it('adds members within the plan cap, counting the owner', async () => {
    const engine = await testEngine();
    const { organization, owner } = await seedOrganization(engine, 'office', { maxMembers: 2 });
    expect(owner.role).toBe('owner');
    expect(organization.memberCount).toBe(1);
    engine.clock.advance(1000); // members list oldest first
    const admin = await addMember(engine, organization.id, { name: 'Luis Gómez', email: 'luis@contadores.do', role: 'admin' });
    expect(admin).toMatchObject({ organizationId: organization.id, role: 'admin', email: 'luis@contadores.do' });
    const err = await thrown(() => addMember(engine, organization.id, { name: 'Rosa Díaz', role: 'member' }), EngineError);
    expect(err.code).toBe('Organization.MemberCapReached');
    expect(err.kind).toBe('conflict');
    expect((await listMembers(engine, organization.id)).map((m) => m.id)).toEqual([owner.id, admin.id]);

    const solo = (await seedOrganization(engine, 'office', { maxMembers: 1 })).organization;
    const full = await thrown(() => addMember(engine, solo.id, { name: 'Rosa Díaz', role: 'member' }), EngineError);
    expect(full.code).toBe('Organization.MemberCapReached');
    expect((await getOrganization(engine, solo.id)).memberCount).toBe(1);

    const bad = await thrown(() => addMember(engine, organization.id, { name: '', role: 'boss' }), ValidationError);
    expect(bad.errors.map((e) => [e.path, e.code])).toEqual([
      ['name', 'StringMinLength'],
      ['role', 'Union'],
    ]);
  });

  it('refuses unknown plans and inserts nothing', async () => {
    const engine = await testEngine();
    const err = await thrown(
      () => createOrganization(engine, { name: 'Contadores', plan: 'enterprise', owner: { name: 'Ana' } }),
      EngineError,
    );
    expect(err.code).toBe('Organization.UnknownPlan');
    expect(err.kind).toBe('validation');
    expect(err.message).toContain('office');
    expect(await engine.db.selectFrom('organizations').selectAll().execute()).toEqual([]);
    expect(await engine.db.selectFrom('organization_members').selectAll().execute()).toEqual([]);

    const solo = await createOrganization(engine, { name: 'Solo', plan: 'solo', owner: { name: 'Ana' } });
    expect(solo.organization.limits).toEqual({ maxTenants: 1, monthlyEcfQuota: 2_000, maxMembers: 2 });
    const overridden = await seedOrganization(engine, 'solo', { maxTenants: 5 });
    expect(overridden.organization.limits).toEqual({ maxTenants: 5, monthlyEcfQuota: 2_000, maxMembers: 2 });
  });

  it('finds a tenant by id or by an RNC that names one tenant', async () => {
    const engine = await testEngine();
    const one = (await seedOrganization(engine)).organization;
    const two = (await seedOrganization(engine)).organization;
    const unique = await createTenant(engine, tenantInput(undefined, one.id));
    const shared = nextRnc();
    const a = await createTenant(engine, tenantInput(shared, one.id));
    const b = await createTenant(engine, tenantInput(shared, two.id));

    expect(await findTenant(engine, unique.id)).toEqual(unique);
    expect(await findTenant(engine, unique.rnc)).toEqual(unique);
    expect(await findTenant(engine, a.id)).toEqual(a);
    expect(await findTenant(engine, b.id)).toEqual(b);

    const ambiguous = await thrown(() => findTenant(engine, shared), EngineError);
    expect(ambiguous.code).toBe('Tenant.Ambiguous');
    expect(ambiguous.kind).toBe('conflict');

    for (const nothing of [nextRnc(), '00000000-0000-4000-8000-000000000000', '']) {
      const err = await thrown(() => findTenant(engine, nothing), EngineError);
      expect(err.code).toBe('Tenant.NotFound');
      expect(err.kind).toBe('not_found');
    }
  });
});

describe('emitter profile', () => {
  const full = {
    address: 'Av. 27 de Febrero 100',
    municipality: '010100',
    province: '010000',
    phones: ['809-555-1234', '829-555-0000'],
    email: 'facturas@cibao.do',
    economicActivity: 'Distribución de alimentos',
  };

  it('is created by setEmitterProfile only with an address', async () => {
    const engine = await testEngine();
    const t = await createTenant(engine, tenantInput());
    const err = await thrown(() => setEmitterProfile(engine, t.id, { municipality: '010100' }), ValidationError);
    expect(err.errors.map((e) => [e.path, e.code])).toEqual([['address', 'ObjectRequiredProperty']]);
    const missing = await thrown(() => getEmitterProfile(engine, t.id), EngineError);
    expect(missing.code).toBe('EmitterProfile.Missing');

    const created = await setEmitterProfile(engine, t.id, { address: '  Calle Duarte 5 ' });
    expect(created).toEqual({
      id: expect.any(String),
      tenantId: t.id,
      address: 'Calle Duarte 5',
      municipality: null,
      province: null,
      phones: [],
      email: null,
      economicActivity: null,
      defaultEnvironment: 'test',
      createdAt: '2026-03-10T10:00:00.000-04:00',
      updatedAt: null,
    });
    expect(await getEmitterProfile(engine, t.id)).toEqual(created);

    const unknown = await thrown(() => setEmitterProfile(engine, '00000000-0000-4000-8000-000000000000', full), EngineError);
    expect(unknown.code).toBe('Tenant.NotFound');
  });

  it('is patched by setEmitterProfile: only the given fields change', async () => {
    const engine = await testEngine();
    const t = await createTenant(engine, tenantInput());
    const created = await setEmitterProfile(engine, t.id, full);
    expect(created).toMatchObject(full);

    engine.clock.advance(60_000);
    const patched = await setEmitterProfile(engine, t.id, { municipality: '020101', email: null });
    expect(patched).toEqual({
      ...created,
      municipality: '020101',
      email: null,
      updatedAt: '2026-03-10T10:01:00.000-04:00',
    });

    engine.clock.advance(60_000);
    const again = await setEmitterProfile(engine, t.id, { phones: ['809-000-0000'] });
    expect(again).toEqual({ ...patched, phones: ['809-000-0000'], updatedAt: '2026-03-10T10:02:00.000-04:00' });
    expect(await engine.db.selectFrom('emitter_profiles').select('id').execute()).toHaveLength(1);

    const bad = await thrown(
      () => setEmitterProfile(engine, t.id, { province: '1', phones: ['8095551234'], address: '' }),
      ValidationError,
    );
    expect(bad.errors.map((e) => [e.path, e.code]).sort()).toEqual(
      [
        ['address', 'StringMinLength'],
        ['phones[0]', 'StringPattern'],
        ['province', 'StringPattern'],
      ].sort(),
    );
    expect(await getEmitterProfile(engine, t.id)).toEqual(again);
  });

  it('is replaced whole by replaceEmitterProfile, which never creates one', async () => {
    const engine = await testEngine();
    const t = await createTenant(engine, tenantInput());
    const missing = await thrown(() => replaceEmitterProfile(engine, t.id, full), EngineError);
    expect(missing.code).toBe('EmitterProfile.Missing');
    expect(missing.kind).toBe('validation');
    expect(await engine.db.selectFrom('emitter_profiles').select('id').execute()).toEqual([]);

    const created = await setEmitterProfile(engine, t.id, full);
    engine.clock.advance(5_000);
    const replacement = {
      address: 'Calle Nueva 1',
      municipality: null,
      province: '250000',
      email: null,
      economicActivity: null,
      phones: null,
    };
    const replaced = await replaceEmitterProfile(engine, t.id, replacement);
    expect(replaced).toEqual({
      id: created.id,
      tenantId: t.id,
      address: 'Calle Nueva 1',
      municipality: null,
      province: '250000',
      phones: [],
      email: null,
      economicActivity: null,
      defaultEnvironment: 'test',
      createdAt: created.createdAt,
      updatedAt: '2026-03-10T10:00:05.000-04:00',
    });

    // PUT needs every field.
    const partial = await thrown(() => replaceEmitterProfile(engine, t.id, { address: 'Calle Otra 2' }), ValidationError);
    // Exactly one "is required" per missing field, nullable or not.
    const missingFields = ['economicActivity', 'email', 'municipality', 'phones', 'province'];
    expect(partial.errors.map((e) => e.path).sort()).toEqual(missingFields);
    for (const path of missingFields) {
      expect(partial.errors, path).toContainEqual({ path, code: 'ObjectRequiredProperty', message: 'is required' });
    }
    expect(await getEmitterProfile(engine, t.id)).toEqual(replaced);
  });
});
