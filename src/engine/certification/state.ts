import { Type } from '@sinclair/typebox';
import type { Engine } from '../engine-types.js';
import { parseJsonColumn } from '../json-column.js';
import { EngineError, notFound } from '../errors.js';
import { toStoredInstant } from '../clock.js';
import { inTransaction, type Tx } from '../store/database.js';
import { PASOS, type PasoNumber } from './pasos.js';

/**
 * A tenant's certification: the state of each Paso, kept in the store so any
 * command can resume where the last one stopped (after Ctrl-C, a crash or a
 * day off). One certification per tenant; starting again keeps what was done.
 */

export type PasoState = 'pending' | 'in_progress' | 'done' | 'failed';

export interface PasoRecord {
  readonly state: PasoState;
  /** When the state last changed (stored instant). */
  readonly at: string | null;
  /** One sentence for the person: what happened last, or what to do next. */
  readonly note?: string;
  /** Whatever the step keeps for the report (counts, files, ids). */
  readonly detail?: Record<string, unknown>;
}

export interface Certification {
  readonly tenantId: string;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly pasos: Readonly<Record<PasoNumber, PasoRecord>>;
}

const blankPasos = (): Record<PasoNumber, PasoRecord> =>
  Object.fromEntries(PASOS.map((p) => [p.paso, { state: 'pending', at: null }])) as Record<PasoNumber, PasoRecord>;

/** `certifications.pasos`: the record of each Paso by its number (Pasos never touched may be missing). */
const PasosColumn = Type.Record(
  Type.String({ pattern: '^(?:[1-9]|1[0-4])$' }),
  Type.Object({
    state: Type.Union([Type.Literal('pending'), Type.Literal('in_progress'), Type.Literal('done'), Type.Literal('failed')]),
    at: Type.Union([Type.String(), Type.Null()]),
    note: Type.Optional(Type.String()),
    detail: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
  { additionalProperties: false },
);

function parsePasos(json: string): Record<PasoNumber, PasoRecord> {
  // The keys were checked to be Paso numbers 1 to 14 (PASOS), and each value a PasoRecord.
  const stored = parseJsonColumn(PasosColumn, json, 'certifications.pasos') as Partial<Record<PasoNumber, PasoRecord>>;
  return { ...blankPasos(), ...stored };
}

/** Starts the tenant's certification, or returns the one already started (nothing done is lost). */
export async function startCertification(engine: Engine, tenantId: string): Promise<{ certification: Certification; created: boolean }> {
  const now = toStoredInstant(engine.clock.now());
  const created = await inTransaction(engine.db, async (tx) => {
    const tenant = await tx.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
    if (!tenant) throw notFound('Tenant');
    const row = await tx.selectFrom('certifications').select('tenant_id').where('tenant_id', '=', tenantId).executeTakeFirst();
    if (row) return false;
    await tx.insertInto('certifications').values({ tenant_id: tenantId, pasos: JSON.stringify(blankPasos()), started_at: now, updated_at: now }).execute();
    return true;
  });
  return { certification: (await getCertification(engine, tenantId))!, created };
}

export async function getCertification(engine: Engine | { db: Engine['db'] }, tenantId: string): Promise<Certification | null> {
  const row = await engine.db.selectFrom('certifications').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  if (!row) return null;
  return { tenantId, startedAt: row.started_at, updatedAt: row.updated_at, pasos: parsePasos(row.pasos) };
}

/** The certification, or an error telling the person to start one. */
export async function requireCertification(engine: Engine, tenantId: string): Promise<Certification> {
  const c = await getCertification(engine, tenantId);
  if (!c) throw new EngineError('conflict', 'Certification.NotStarted', 'No certification is started for this tenant: run `ecf certify start` first.');
  return c;
}

export interface PasoUpdate {
  readonly state: PasoState;
  readonly note?: string;
  /** Merged into what the Paso already keeps; a key set to undefined is removed. */
  readonly detail?: Record<string, unknown>;
}

/** Records a Paso's new state, inside the caller's transaction (one business fact, one transaction). */
export async function recordPasoIn(tx: Tx, tenantId: string, paso: PasoNumber, update: PasoUpdate, now: Date): Promise<void> {
  const row = await tx.selectFrom('certifications').select('pasos').where('tenant_id', '=', tenantId).executeTakeFirst();
  if (!row) throw new EngineError('conflict', 'Certification.NotStarted', 'No certification is started for this tenant: run `ecf certify start` first.');
  const pasos = parsePasos(row.pasos);
  const before = pasos[paso];
  const at = toStoredInstant(now);
  const detail = update.detail ? JSON.parse(JSON.stringify({ ...before.detail, ...update.detail })) : before.detail;
  pasos[paso] = {
    state: update.state,
    at: update.state === before.state ? (before.at ?? at) : at,
    ...(update.note !== undefined ? { note: update.note } : before.note !== undefined ? { note: before.note } : {}),
    ...(detail ? { detail } : {}),
  };
  await tx.updateTable('certifications').set({ pasos: JSON.stringify(pasos), updated_at: at }).where('tenant_id', '=', tenantId).execute();
}

/** recordPasoIn in a transaction of its own. */
export async function recordPaso(engine: Engine, tenantId: string, paso: PasoNumber, update: PasoUpdate): Promise<void> {
  await inTransaction(engine.db, (tx) => recordPasoIn(tx, tenantId, paso, update, engine.clock.now()));
}
