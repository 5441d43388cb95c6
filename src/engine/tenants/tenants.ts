import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Engine } from '../engine-types.js';
import { conflict, notFound, EngineError } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { inTransaction, type Db } from '../store/database.js';
import { forUpdate, isUniqueViolation } from '../store/locking.js';
import { check } from '../validation.js';
import { requireOrganization, requireTenant, tenantKey } from './lookup.js';
import { appendJournal } from '../journal/append.js';
import {
  CreateTenantInput,
  UpdateTenantInput,
  type TenantView,
} from './schemas.js';
import { tenantView } from './views.js';
import { noteOrganizationUsage } from '../limits/usage.js';

/**
 * Creates a tenant, inside an organization when one is given: the plan's
 * tenant cap and the one-RNC-per-organization rule are checked in the same
 * transaction as the insert.
 */
export async function createTenant(engine: Engine, input: unknown): Promise<TenantView> {
  const cmd = check(CreateTenantInput, input);
  const organizationId = cmd.organizationId ?? null;
  // On PostgreSQL two tenants created at the same moment may both read the same next store key: the
  // later insert fails on tenants_store_key and is made again, reading the other's key this time.
  for (let attempt = 1; ; attempt++) {
    try {
      return await insertTenant(engine, cmd, organizationId);
    } catch (e) {
      if (attempt < 20 && isUniqueViolation(e, STORE_KEY_INDEX)) continue;
      throw e;
    }
  }
}

const STORE_KEY_INDEX = { name: 'tenants_store_key', columns: ['store_key'] } as const;

async function insertTenant(engine: Engine, cmd: Static<typeof CreateTenantInput>, organizationId: string | null): Promise<TenantView> {
  return inTransaction(engine.db, async (tx) => {
    if (organizationId) await assertRoomForTenant(tx, organizationId);
    await assertRncFree(tx, organizationId, cmd.rnc);
    const row = {
      id: newId(),
      organization_id: organizationId,
      rnc: cmd.rnc,
      legal_name: cmd.legalName.trim(),
      trade_name: cmd.tradeName?.trim() ?? null,
      default_environment: cmd.defaultEnvironment ?? 'test',
      created_at: engine.clock.now().toISOString(),
      updated_at: null,
    };
    // The next store key (ecf.tenant_key): tenants are never deleted, so max + 1 is never a key used before.
    await tx
      .insertInto('tenants')
      .values({ ...row, store_key: sql<number>`(select coalesce(max(store_key), 0) + 1 from tenants)` })
      .execute();
    appendJournal(tx, engine.clock.now(), { tenantKey: await tenantKey(tx, row.id), kind: 'tenant.created', data: row.rnc });
    if (organizationId) await noteOrganizationUsage(tx, engine.clock.now(), organizationId);
    return tenantView(row);
  });
}

/** The plan's tenant cap: call inside the transaction that adds the tenant. */
async function assertRoomForTenant(db: Db, organizationId: string): Promise<void> {
  const org = await requireOrganization(db, organizationId, { forUpdate: true });
  const { n } = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  if (Number(n) >= org.max_tenants) {
    throw conflict(
      'Organization.TenantCapReached',
      `The organization's plan allows ${org.max_tenants} tenant(s) and all are in use.`,
    );
  }
}

async function assertRncFree(db: Db, organizationId: string | null, rnc: string): Promise<void> {
  let q = db.selectFrom('tenants').select('id').where('rnc', '=', rnc);
  q = organizationId ? q.where('organization_id', '=', organizationId) : q.where('organization_id', 'is', null);
  if (await q.executeTakeFirst()) {
    throw conflict(
      'Tenant.DuplicateRnc',
      organizationId
        ? `A tenant with RNC ${rnc} already exists in this organization.`
        : `A tenant with RNC ${rnc} already exists outside any organization.`,
    );
  }
}

export async function getTenant(engine: Engine, id: string): Promise<TenantView> {
  return tenantView(await requireTenant(engine.db, id));
}

/** For people at a terminal: a tenant by id, or by RNC when that RNC names exactly one tenant. */
export async function findTenant(engine: Engine, idOrRnc: string): Promise<TenantView> {
  if (isUuid(idOrRnc)) return getTenant(engine, idOrRnc);
  const rows = await engine.db.selectFrom('tenants').selectAll().where('rnc', '=', idOrRnc).execute();
  if (rows.length === 0) throw notFound('Tenant');
  if (rows.length > 1) {
    throw new EngineError(
      'conflict',
      'Tenant.Ambiguous',
      `RNC ${idOrRnc} belongs to ${rows.length} tenants in different organizations; use the tenant id.`,
    );
  }
  return tenantView(rows[0]!);
}

export async function listTenants(
  engine: Engine,
  filter: { organizationId?: string } = {},
): Promise<TenantView[]> {
  let q = engine.db.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id');
  if (filter.organizationId) q = q.where('organization_id', '=', filter.organizationId);
  return (await q.execute()).map(tenantView);
}

export async function updateTenant(engine: Engine, id: string, input: unknown): Promise<TenantView> {
  const cmd = check(UpdateTenantInput, input);
  return inTransaction(engine.db, async (tx) => {
    await requireTenant(tx, id);
    const changes = {
      ...(cmd.legalName !== undefined && { legal_name: cmd.legalName.trim() }),
      ...(cmd.tradeName !== undefined && { trade_name: cmd.tradeName?.trim() ?? null }),
      ...(cmd.defaultEnvironment !== undefined && { default_environment: cmd.defaultEnvironment }),
    };
    if (Object.keys(changes).length > 0) {
      await tx
        .updateTable('tenants')
        .set({ ...changes, updated_at: engine.clock.now().toISOString() })
        .where('id', '=', id)
        .execute();
    }
    return tenantView(await requireTenant(tx, id));
  });
}

/** Operator only: moves an existing tenant into an organization, within the plan's cap. */
export async function attachTenant(engine: Engine, id: string, organizationId: string): Promise<TenantView> {
  return inTransaction(engine.db, async (tx) => {
    const tenant = await requireTenant(tx, id);
    if (tenant.organization_id === organizationId) return tenantView(tenant);
    await assertRoomForTenant(tx, organizationId);
    await assertRncFree(tx, organizationId, tenant.rnc);
    await tx
      .updateTable('tenants')
      .set({ organization_id: organizationId, updated_at: engine.clock.now().toISOString() })
      .where('id', '=', id)
      .execute();
    await noteOrganizationUsage(tx, engine.clock.now(), organizationId);
    return tenantView(await requireTenant(tx, id));
  });
}
