import { Type, type Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { conflict, invalidField } from '../errors.js';
import { emit } from '../events/outbox.js';
import { DateTime, Nullable, Uuid } from '../schema-types.js';
import { inTransaction, type Db, type Tx } from '../store/database.js';
import type { EmissionPausesTable } from '../store/schema.js';
import { prepared } from '../store/prepared.js';
import { requireOrganization } from '../tenants/lookup.js';
import { requireTenant } from '../tenants/lookup.js';
import { check } from '../validation.js';

/**
 * Emission pause: while a tenant, or the organization it belongs to, is
 * paused, new e-CF are refused (409 Ecf.EmissionPaused); stored documents,
 * retries, validation and queries keep working. A pause may end by itself at
 * `until`. `tenant.emission_paused` / `tenant.emission_resumed` are emitted
 * per tenant, only when that tenant's effective state changes.
 */

export type PauseScope = 'tenant' | 'organization';
/** Who set a pause, and so who may change or lift it: the operator any; a tenant's admin only its own. */
export type PauseActor = { readonly kind: 'operator' } | { readonly kind: 'tenant'; readonly keyId: string };

type PauseRow = Selectable<EmissionPausesTable>;

export const PauseBody = Type.Object(
  {
    reason: Type.Optional(Nullable(Type.String({ maxLength: 500, errorMessage: 'must be a text of at most 500 characters, or null' }))),
    until: Type.Optional(Nullable(DateTime({ errorMessage: 'must be a date-time with its offset, e.g. 2026-03-11T08:00:00-04:00, or null' }))),
  },
  { additionalProperties: false },
);
export type PauseBody = Static<typeof PauseBody>;

export const ResumeBody = Type.Object(
  { reason: Type.Optional(Nullable(Type.String({ maxLength: 500, errorMessage: 'must be a text of at most 500 characters, or null' }))) },
  { additionalProperties: false },
);
export type ResumeBody = Static<typeof ResumeBody>;

/** A tenant's emission as it is now: the pause in force, if any (the organization's wins over the tenant's own). */
export const EmissionStateView = Type.Object({
  tenantId: Uuid(),
  organizationId: Nullable(Uuid()),
  paused: Type.Boolean(),
  source: Nullable(Type.Union([Type.Literal('tenant'), Type.Literal('organization')])),
  reason: Nullable(Type.String()),
  until: Nullable(Type.String({ format: 'date-time' })),
  changedBy: Nullable(Type.String({ description: 'operator, or api-key:<key id> for a tenant admin through the API' })),
  pausedAt: Nullable(Type.String({ format: 'date-time' })),
});
export type EmissionStateView = Static<typeof EmissionStateView>;

/** The contract's payload of tenant.emission_paused / tenant.emission_resumed. */
export interface PauseEventObject {
  readonly tenantId: string;
  readonly paused: boolean;
  readonly reason: string | null;
  readonly until: string | null;
  readonly source: PauseScope;
  readonly changedBy: string;
  readonly organizationId: string | null;
}

const actorName = (actor: PauseActor): string => (actor.kind === 'operator' ? 'operator' : `api-key:${actor.keyId}`);

const inForce = (row: PauseRow | undefined, now: Date): row is PauseRow =>
  !!row && (row.until === null || Date.parse(row.until) > now.getTime());

/** The pauses of a tenant and its organization that are in force now (read in the caller's transaction or not). */
const tenantPauses = prepared((db, p: { tenantId: string }) =>
  db.selectFrom('emission_pauses').selectAll().where((eb) => eb.and([eb('scope', '=', 'tenant'), eb('subject_id', '=', p.tenantId)])),
);
const tenantAndOrganizationPauses = prepared((db, p: { tenantId: string; organizationId: string }) =>
  db
    .selectFrom('emission_pauses')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('scope', '=', 'tenant'), eb('subject_id', '=', p.tenantId)]),
        eb.and([eb('scope', '=', 'organization'), eb('subject_id', '=', p.organizationId)]),
      ]),
    ),
);

async function pausesOf(db: Db, now: Date, tenantId: string, organizationId: string | null): Promise<{ tenant?: PauseRow; organization?: PauseRow }> {
  const rows = organizationId ? await tenantAndOrganizationPauses(db, { tenantId, organizationId }) : await tenantPauses(db, { tenantId });
  const tenant = rows.find((r) => r.scope === 'tenant');
  const organization = rows.find((r) => r.scope === 'organization');
  return { ...(inForce(tenant, now) && { tenant }), ...(inForce(organization, now) && { organization }) };
}

/** The pause in force for a tenant, if any: the organization's first, since lifting the tenant's alone would not resume. */
export async function pauseInForce(db: Db, now: Date, tenantId: string, organizationId: string | null): Promise<PauseRow | undefined> {
  const p = await pausesOf(db, now, tenantId, organizationId);
  return p.organization ?? p.tenant;
}

/** For the issuing transaction: 409 Ecf.EmissionPaused while a pause is in force. */
export async function assertEmissionOpen(tx: Tx, now: Date, tenantId: string, organizationId: string | null): Promise<void> {
  const pause = await pauseInForce(tx, now, tenantId, organizationId);
  if (!pause) return;
  const who = pause.scope === 'organization' ? 'its organization' : 'the tenant';
  const until = pause.until ? ` until ${toDominicanIso(pause.until)}` : '';
  const reason = pause.reason ? ` (${pause.reason})` : '';
  throw conflict('Ecf.EmissionPaused', `Emission of new e-CF is paused by ${who}${until}${reason}; stored e-CF, retries, validation and queries keep working.`);
}

function stateView(tenantId: string, organizationId: string | null, pause: PauseRow | undefined): EmissionStateView {
  return {
    tenantId,
    organizationId,
    paused: !!pause,
    source: pause ? (pause.scope as PauseScope) : null,
    reason: pause?.reason ?? null,
    until: pause?.until ? toDominicanIso(pause.until) : null,
    changedBy: pause?.changed_by ?? null,
    pausedAt: pause ? toDominicanIso(pause.paused_at) : null,
  };
}

export async function emissionState(engine: Engine, tenantId: string): Promise<EmissionStateView> {
  const tenant = await requireTenant(engine.db, tenantId);
  return stateView(tenantId, tenant.organization_id, await pauseInForce(engine.db, engine.clock.now(), tenantId, tenant.organization_id));
}

function parseUntil(until: string | null | undefined, now: Date): string | null {
  if (until === null || until === undefined) return null;
  const ms = Date.parse(until);
  if (ms <= now.getTime()) throw invalidField('until', 'Emission.UntilInPast', `must be in the future; it is now ${toDominicanIso(now)}`);
  return new Date(ms).toISOString();
}

/** The tenants a change of this subject's pause affects, with their organization. */
async function affected(tx: Tx, scope: PauseScope, subjectId: string): Promise<{ id: string; organization_id: string | null }[]> {
  const q = tx.selectFrom('tenants').select(['id', 'organization_id']);
  return scope === 'tenant' ? q.where('id', '=', subjectId).execute() : q.where('organization_id', '=', subjectId).orderBy('created_at').orderBy('id').execute();
}

/**
 * Writes (or replaces) the pause of a tenant or organization, then tells each
 * affected tenant whose effective state changed. Returns the pause row's view
 * for a tenant, or per tenant of the organization.
 */
async function change(
  engine: Engine,
  scope: PauseScope,
  subjectId: string,
  actor: PauseActor,
  write: (tx: Tx, now: Date, current: PauseRow | undefined) => Promise<void>,
  event: (tenant: { id: string; organization_id: string | null }, now: Date) => PauseEventObject,
): Promise<void> {
  const now = engine.clock.now();
  await inTransaction(engine.db, async (tx) => {
    const current = await tx.selectFrom('emission_pauses').selectAll().where('scope', '=', scope).where('subject_id', '=', subjectId).executeTakeFirst();
    if (actor.kind === 'tenant' && current && inForce(current, now) && current.set_by === 'operator') {
      throw conflict('Emission.PausedByOperator', 'The operator paused this tenant; only the operator can change or lift that pause.');
    }
    const tenants = await affected(tx, scope, subjectId);
    const before = new Map<string, boolean>();
    for (const t of tenants) before.set(t.id, !!(await pauseInForce(tx, now, t.id, t.organization_id)));
    await write(tx, now, current);
    for (const t of tenants) {
      const after = !!(await pauseInForce(tx, now, t.id, t.organization_id));
      if (after === before.get(t.id)) continue;
      const object = event(t, now);
      await emit(tx, now, t.id, after ? 'tenant.emission_paused' : 'tenant.emission_resumed', object);
    }
  });
}

/**
 * Pauses emission of a tenant or of every tenant of an organization. Pausing
 * again replaces reason and until; it is told only to tenants that were not
 * already paused.
 */
export async function pauseEmission(engine: Engine, scope: PauseScope, subjectId: string, input: unknown, actor: PauseActor): Promise<void> {
  const cmd = check(PauseBody, input);
  if (scope === 'tenant') await requireTenant(engine.db, subjectId);
  else await requireOrganization(engine.db, subjectId);
  const until = parseUntil(cmd.until, engine.clock.now());
  const reason = cmd.reason?.trim() || null;
  const changedBy = actorName(actor);
  await change(
    engine,
    scope,
    subjectId,
    actor,
    async (tx, now) => {
      const row = { scope, subject_id: subjectId, reason, until, set_by: actor.kind, changed_by: changedBy, paused_at: now.toISOString() };
      await tx
        .insertInto('emission_pauses')
        .values(row)
        .onConflict((oc) => oc.columns(['scope', 'subject_id']).doUpdateSet({ reason, until, set_by: actor.kind, changed_by: changedBy, paused_at: row.paused_at }))
        .execute();
    },
    (t) => ({
      tenantId: t.id,
      paused: true,
      reason,
      until: until ? toDominicanIso(until) : null,
      source: scope,
      changedBy,
      organizationId: t.organization_id,
    }),
  );
}

/**
 * Lifts the pause of a tenant or organization. Told only to tenants whose
 * emission is open again (a tenant whose organization is still paused, or a
 * pause that already ended at its `until`, changes nothing).
 */
export async function resumeEmission(engine: Engine, scope: PauseScope, subjectId: string, input: unknown, actor: PauseActor): Promise<void> {
  const cmd = check(ResumeBody, input ?? {});
  if (scope === 'tenant') await requireTenant(engine.db, subjectId);
  else await requireOrganization(engine.db, subjectId);
  const changedBy = actorName(actor);
  await change(
    engine,
    scope,
    subjectId,
    actor,
    async (tx) => {
      await tx.deleteFrom('emission_pauses').where('scope', '=', scope).where('subject_id', '=', subjectId).execute();
    },
    (t) => ({
      tenantId: t.id,
      paused: false,
      reason: cmd.reason?.trim() || null,
      until: null,
      source: scope,
      changedBy,
      organizationId: t.organization_id,
    }),
  );
}

/** For the API: a tenant admin pauses or resumes its own tenant, and gets the state back. */
export async function pauseOwnEmission(engine: Engine, tenantId: string, keyId: string, input: unknown): Promise<EmissionStateView> {
  await pauseEmission(engine, 'tenant', tenantId, input, { kind: 'tenant', keyId });
  return emissionState(engine, tenantId);
}

export async function resumeOwnEmission(engine: Engine, tenantId: string, keyId: string, input: unknown): Promise<EmissionStateView> {
  await resumeEmission(engine, 'tenant', tenantId, input, { kind: 'tenant', keyId });
  return emissionState(engine, tenantId);
}

/** The emission state of every tenant of an organization, oldest tenant first. */
export async function organizationEmissionStates(engine: Engine, organizationId: string): Promise<EmissionStateView[]> {
  await requireOrganization(engine.db, organizationId);
  const tenants = await engine.db.selectFrom('tenants').select('id').where('organization_id', '=', organizationId).orderBy('created_at').orderBy('id').execute();
  return Promise.all(tenants.map((t) => emissionState(engine, t.id)));
}
