import type { Selectable } from 'kysely';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError, type FieldError } from '../errors.js';
import { newId } from '../ids.js';
import { inTransaction, type Db } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import type { TenantsTable } from '../store/schema.js';
import { check, fieldErrors } from '../validation.js';
import { EmitterProfileBody, EmitterProfilePatch, PROFILE_READ_ONLY, type EmitterProfileView, type ProfileReadOnlyField } from './schemas.js';
import { requireTenant } from './lookup.js';
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

/**
 * PUT semantics: replaces every field of an existing profile; never creates
 * one. The body may be the view GET answers: its read-only fields are taken
 * when they equal the stored ones, and refused by name when they do not.
 */
export async function replaceEmitterProfile(
  engine: Engine,
  tenantId: string,
  input: unknown,
): Promise<EmitterProfileView> {
  const { fields, readOnly } = splitReadOnly(input);
  const shapeErrors = fieldErrors(EmitterProfileBody, fields);
  return inTransaction(engine.db, async (tx) => {
    const existing = await load(tx, tenantId);
    const errors = [...shapeErrors, ...(existing ? readOnlyErrors(readOnly, existing) : [])];
    if (errors.length > 0) throw new ValidationError(errors);
    if (!existing) throw missingProfile();
    await tx
      .updateTable('emitter_profiles')
      .set({ ...columns(fields as EmitterProfileBody), updated_at: engine.clock.now().toISOString() })
      .where('tenant_id', '=', tenantId)
      .execute();
    return (await load(tx, tenantId))!;
  });
}

/** The body without the view's read-only fields, and those fields as sent. */
function splitReadOnly(input: unknown): { fields: unknown; readOnly: Map<ProfileReadOnlyField, unknown> } {
  const readOnly = new Map<ProfileReadOnlyField, unknown>();
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return { fields: input, readOnly };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if ((PROFILE_READ_ONLY as readonly string[]).includes(key)) readOnly.set(key as ProfileReadOnlyField, value);
    // defineProperty, not assignment: a "__proto__" key stays a key (refused as unknown), not a prototype.
    else Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { fields, readOnly };
}

/** Times are the same when they name the same instant, whatever offset they are written in. */
function sameValue(field: ProfileReadOnlyField, sent: unknown, stored: unknown): boolean {
  if (sent === stored) return true;
  if (typeof sent !== 'string' || typeof stored !== 'string') return false;
  if (field === 'createdAt' || field === 'updatedAt') {
    const instant = Date.parse(sent);
    return !Number.isNaN(instant) && instant === Date.parse(stored);
  }
  return (field === 'id' || field === 'tenantId') && sent.toLowerCase() === stored.toLowerCase();
}

function readOnlyErrors(sent: Map<ProfileReadOnlyField, unknown>, stored: EmitterProfileView): FieldError[] {
  const errors: FieldError[] = [];
  for (const [field, value] of sent) {
    if (sameValue(field, value, stored[field])) continue;
    errors.push({
      path: field,
      code: 'EmitterProfile.ReadOnlyField',
      message: `is read-only: leave it out or send it as GET /emitter-profile gives it (${JSON.stringify(stored[field])}); fetch the profile again if it changed since`,
    });
  }
  return errors;
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
