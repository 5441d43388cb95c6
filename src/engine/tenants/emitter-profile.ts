import type { Selectable } from 'kysely';
import type { Engine } from '../engine.js';
import { EngineError } from '../errors.js';
import { newId } from '../ids.js';
import { inTransaction, type Db } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import type { TenantsTable } from '../store/schema.js';
import { check } from '../validation.js';
import { EmitterProfileBody, EmitterProfilePatch, type EmitterProfileView } from './schemas.js';
import { requireTenant } from './tenants.js';
import { profileView } from './views.js';

/** The contract answers 400 (not 404) for a tenant whose profile the operator has not created. */
const missingProfile = () =>
  new EngineError(
    'validation',
    'EmitterProfile.Missing',
    'This tenant has no emitter profile yet; the operator creates it with `ecf tenant profile`.',
  );

// Read by every request that issues: answered from memory until the store changes.
const profileOf = prepared((db, p: { tenantId: string }) => db.selectFrom('emitter_profiles').selectAll().where('tenant_id', '=', p.tenantId), { reuseUntilCommit: true });

async function load(db: Db, tenantId: string): Promise<EmitterProfileView | null> {
  return loadFor(db, await requireTenant(db, tenantId));
}

async function loadFor(db: Db, tenant: Selectable<TenantsTable>): Promise<EmitterProfileView | null> {
  const [row] = await profileOf(db, { tenantId: tenant.id });
  return row ? profileView(row, tenant.default_environment) : null;
}

/** getEmitterProfile for a tenant the caller has just read, in the caller's transaction. */
export async function emitterProfileIn(db: Db, tenant: Selectable<TenantsTable>): Promise<EmitterProfileView> {
  const view = await loadFor(db, tenant);
  if (!view) throw missingProfile();
  return view;
}

export async function getEmitterProfile(engine: Engine, tenantId: string): Promise<EmitterProfileView> {
  return emitterProfileIn(engine.db, await requireTenant(engine.db, tenantId));
}

/** PUT semantics: replaces every field of an existing profile; never creates one. */
export async function replaceEmitterProfile(
  engine: Engine,
  tenantId: string,
  input: unknown,
): Promise<EmitterProfileView> {
  const body = check(EmitterProfileBody, input);
  return inTransaction(engine.db, async (tx) => {
    if (!(await load(tx, tenantId))) throw missingProfile();
    await tx
      .updateTable('emitter_profiles')
      .set({ ...columns(body), updated_at: engine.clock.now().toISOString() })
      .where('tenant_id', '=', tenantId)
      .execute();
    return (await load(tx, tenantId))!;
  });
}

/** The operator's door: creates the profile (address required) or changes the given fields. */
export async function setEmitterProfile(
  engine: Engine,
  tenantId: string,
  input: unknown,
): Promise<EmitterProfileView> {
  const patch = check(EmitterProfilePatch, input);
  return inTransaction(engine.db, async (tx) => {
    const now = engine.clock.now().toISOString();
    const existing = await load(tx, tenantId);
    const base: Omit<EmitterProfileBody, 'address'> & { address?: string } = existing ?? {
      municipality: null,
      province: null,
      email: null,
      economicActivity: null,
      phones: null,
    };
    const full = check(EmitterProfileBody, {
      ...(base.address !== undefined && { address: base.address }),
      municipality: base.municipality,
      province: base.province,
      email: base.email,
      economicActivity: base.economicActivity,
      phones: base.phones,
      ...patch,
    });
    if (existing) {
      await tx
        .updateTable('emitter_profiles')
        .set({ ...columns(full), updated_at: now })
        .where('tenant_id', '=', tenantId)
        .execute();
    } else {
      await tx
        .insertInto('emitter_profiles')
        .values({ id: newId(), tenant_id: tenantId, ...columns(full), created_at: now, updated_at: null })
        .execute();
    }
    return (await load(tx, tenantId))!;
  });
}

function columns(p: EmitterProfileBody) {
  return {
    address: p.address.trim(),
    municipality: p.municipality,
    province: p.province,
    email: p.email,
    economic_activity: p.economicActivity?.trim() ?? null,
    phones: JSON.stringify(p.phones ?? []),
  };
}
