import type { Selectable } from 'kysely';
import type { Engine } from '../engine-types.js';
import { conflict } from '../errors.js';
import { newId } from '../ids.js';
import { inTransaction, type Db } from '../store/database.js';
import { forUpdate } from '../store/locking.js';
import type { OrganizationsTable } from '../store/schema.js';
import { check } from '../validation.js';
import { toDominicanIso } from '../clock.js';
import { planLimits } from './plans.js';
import {
  AddMemberInput,
  CreateOrganizationInput,
  type MemberView,
  type OrganizationView,
} from './schemas.js';
import { emitted, memberView } from './views.js';
import { noteOrganizationUsage } from '../limits/usage.js';
import { requireOrganization } from './lookup.js';

async function organizationView(db: Db, r: Selectable<OrganizationsTable>): Promise<OrganizationView> {
  const [tenants, members] = await Promise.all([
    db.selectFrom('tenants').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', '=', r.id).executeTakeFirstOrThrow(),
    db.selectFrom('organization_members').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', '=', r.id).executeTakeFirstOrThrow(),
  ]);
  return {
    id: r.id,
    name: r.name,
    plan: r.plan,
    limits: { maxTenants: r.max_tenants, monthlyEcfQuota: r.monthly_ecf_quota, maxMembers: r.max_members },
    tenantCount: Number(tenants.n),
    memberCount: Number(members.n),
    createdAt: toDominicanIso(r.created_at),
    updatedAt: emitted(r.updated_at),
  };
}

/** Creates an organization on a plan, with its owner as the first member. */
export async function createOrganization(
  engine: Engine,
  input: unknown,
): Promise<{ organization: OrganizationView; owner: MemberView }> {
  const cmd = check(CreateOrganizationInput, input);
  const limits = planLimits(cmd.plan, cmd.limits);
  const now = engine.clock.now().toISOString();
  return inTransaction(engine.db, async (tx) => {
    const org = {
      id: newId(),
      name: cmd.name.trim(),
      plan: cmd.plan,
      max_tenants: limits.maxTenants,
      monthly_ecf_quota: limits.monthlyEcfQuota,
      max_members: limits.maxMembers,
      created_at: now,
      updated_at: null,
    };
    await tx.insertInto('organizations').values(org).execute();
    const owner = {
      id: newId(),
      organization_id: org.id,
      name: cmd.owner.name.trim(),
      email: cmd.owner.email ?? null,
      role: 'owner',
      created_at: now,
    };
    await tx.insertInto('organization_members').values(owner).execute();
    await noteOrganizationUsage(tx, engine.clock.now(), org.id);
    return { organization: await organizationView(tx, org), owner: memberView(owner) };
  });
}

export async function getOrganization(engine: Engine, id: string): Promise<OrganizationView> {
  return organizationView(engine.db, await requireOrganization(engine.db, id));
}

export async function listOrganizations(engine: Engine): Promise<OrganizationView[]> {
  const rows = await engine.db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
  return Promise.all(rows.map((r) => organizationView(engine.db, r)));
}

/** Adds a member within the plan's member cap. */
export async function addMember(engine: Engine, organizationId: string, input: unknown): Promise<MemberView> {
  const cmd = check(AddMemberInput, input);
  return inTransaction(engine.db, async (tx) => {
    const org = await requireOrganization(tx, organizationId, { forUpdate: true });
    const { n } = await tx
      .selectFrom('organization_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    if (Number(n) >= org.max_members) {
      throw conflict('Organization.MemberCapReached', `The organization's plan allows ${org.max_members} member(s) and all are in use.`);
    }
    const row = {
      id: newId(),
      organization_id: organizationId,
      name: cmd.name.trim(),
      email: cmd.email ?? null,
      role: cmd.role,
      created_at: engine.clock.now().toISOString(),
    };
    await tx.insertInto('organization_members').values(row).execute();
    await noteOrganizationUsage(tx, engine.clock.now(), organizationId);
    return memberView(row);
  });
}

export async function listMembers(engine: Engine, organizationId: string): Promise<MemberView[]> {
  await requireOrganization(engine.db, organizationId);
  const rows = await engine.db
    .selectFrom('organization_members')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(memberView);
}
