import type { Selectable } from 'kysely';
import { dominicanDate, toDominicanIso } from '../clock.js';
import type { Engine } from '../engine.js';
import { EngineError, ValidationError, conflict } from '../errors.js';
import { emit } from '../events/outbox.js';
import { newId } from '../ids.js';
import type { EcfType } from '../documents/payload.js';
import { TYPE_NAMES } from '../documents/types.js';
import { getSetting } from '../settings/settings.js';
import { inTransaction, type Tx } from '../store/database.js';
import type { SequenceRangesTable } from '../store/schema.js';
import type { Environment } from '../schema-types.js';
import { requireTenant } from '../tenants/tenants.js';
import { check } from '../validation.js';
import { AddRangeInput, AllocateBody, type AllocatedSequence, type SequenceRangeView } from './schemas.js';

type Row = Selectable<SequenceRangesTable>;

export const SERIES = 'E';
export const MAX_SEQUENTIAL = 9_999_999_999;
/** Types 32 and 34 have no FechaVencimientoSecuencia, so their ranges never expire (NOTES §8). */
export const NON_EXPIRING: ReadonlySet<number> = new Set([32, 34]);

/** E + two-digit type + ten-digit sequence: E310000000001. */
export const formatEncf = (type: number, sequential: number): string => `${SERIES}${type}${String(sequential).padStart(10, '0')}`;

export function rangeView(r: Row, lowStockFraction: number): SequenceRangeView {
  const capacity = r.range_to - r.range_from + 1;
  const remaining = Math.max(0, r.range_to - r.next + 1);
  return {
    id: r.id,
    environment: r.environment as Environment,
    type: r.type,
    series: r.series,
    rangeFrom: r.range_from,
    rangeTo: r.range_to,
    next: r.next,
    capacity,
    remaining,
    isLowStock: remaining / capacity <= lowStockFraction,
    expiresOn: r.expires_on,
    active: r.active === 1,
    createdAt: toDominicanIso(r.created_at),
    typeName: TYPE_NAMES[r.type as EcfType],
  };
}

/** Loads an authorized range (operator task). Overlapping ranges of the same tenant, environment and type are refused. */
export async function addRange(engine: Engine, input: unknown): Promise<SequenceRangeView> {
  const cmd = check(AddRangeInput, input);
  const type = Number(cmd.type);
  const from = Number(cmd.rangeFrom);
  const to = Number(cmd.rangeTo);
  const errors = [];
  if (from < 1 || from > MAX_SEQUENTIAL) errors.push({ path: 'rangeFrom', code: 'Sequence.OutOfBounds', message: `must be from 1 to ${MAX_SEQUENTIAL}` });
  if (to < 1 || to > MAX_SEQUENTIAL) errors.push({ path: 'rangeTo', code: 'Sequence.OutOfBounds', message: `must be from 1 to ${MAX_SEQUENTIAL}` });
  if (to < from) errors.push({ path: 'rangeTo', code: 'Sequence.Reversed', message: 'must not be below rangeFrom' });
  const expiresOn = cmd.expiresOn ?? null;
  if (NON_EXPIRING.has(type) && expiresOn) errors.push({ path: 'expiresOn', code: 'Sequence.NoExpiryForType', message: `type ${type} ranges have no expiry date` });
  if (!NON_EXPIRING.has(type) && !expiresOn) errors.push({ path: 'expiresOn', code: 'Sequence.ExpiryRequired', message: `type ${type} ranges need an expiry date` });
  if (errors.length) throw new ValidationError(errors);
  return inTransaction(engine.db, async (tx) => {
    await requireTenant(tx, cmd.tenantId);
    const overlapping = await tx
      .selectFrom('sequence_ranges')
      .select(['range_from', 'range_to'])
      .where('tenant_id', '=', cmd.tenantId)
      .where('environment', '=', cmd.environment)
      .where('type', '=', type)
      .where('range_from', '<=', to)
      .where('range_to', '>=', from)
      .executeTakeFirst();
    if (overlapping) {
      throw conflict('Sequence.Overlap', `The range ${from}–${to} overlaps the loaded range ${overlapping.range_from}–${overlapping.range_to} of type ${type} in ${cmd.environment}.`);
    }
    const row: Row = {
      id: newId(),
      tenant_id: cmd.tenantId,
      environment: cmd.environment,
      type,
      series: SERIES,
      range_from: from,
      range_to: to,
      next: from,
      expires_on: expiresOn,
      active: 1,
      created_at: engine.clock.now().toISOString(),
    };
    await tx.insertInto('sequence_ranges').values(row).execute();
    return row;
  }).then(async (row) => rangeView(row, await getSetting<number>(engine, 'sequences.low_stock_fraction', cmd.tenantId)));
}

export async function listRanges(engine: Engine, tenantId: string): Promise<SequenceRangeView[]> {
  await requireTenant(engine.db, tenantId);
  const fraction = await getSetting<number>(engine, 'sequences.low_stock_fraction', tenantId);
  const rows = await engine.db
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('environment')
    .orderBy('type')
    .orderBy('range_from')
    .execute();
  return rows.map((r) => rangeView(r, fraction));
}

export interface Allocation extends AllocatedSequence {
  readonly rangeId: string;
  /** YYYY-MM-DD, null for 32 and 34. */
  readonly expiresOn: string | null;
}

/**
 * Takes the next number inside the caller's transaction: from the active,
 * unexpired range with numbers left and the lowest start. A rollback of the
 * transaction gives the number back. Announces `sequence.low` when the range
 * reaches the low-stock fraction and `sequence.exhausted` when it runs out,
 * once each.
 */
export async function allocateIn(
  tx: Tx,
  now: Date,
  tenantId: string,
  environment: Environment,
  type: number,
  lowStockFraction: number,
): Promise<Allocation> {
  const today = dominicanDate(now);
  const range = await tx
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('environment', '=', environment)
    .where('type', '=', type)
    .where('active', '=', 1)
    .whereRef('next', '<=', 'range_to')
    .where((eb) => eb.or([eb('expires_on', 'is', null), eb('expires_on', '>=', today)]))
    .orderBy('range_from')
    .executeTakeFirst();
  if (!range) {
    throw new EngineError(
      'conflict',
      'Sequence.Exhausted',
      `No active, unexpired e-NCF range of type ${type} has numbers left in ${environment}; load one with \`ecf sequence add\`.`,
    );
  }
  const sequential = range.next;
  await tx.updateTable('sequence_ranges').set({ next: sequential + 1 }).where('id', '=', range.id).where('next', '=', sequential).execute();
  const after = { ...range, next: sequential + 1 };
  const view = rangeView(after, lowStockFraction);
  if (view.remaining === 0) {
    await emit(tx, now, tenantId, 'sequence.exhausted', view, { factKey: `sequence.exhausted:${range.id}` });
  } else if (view.isLowStock) {
    await emit(tx, now, tenantId, 'sequence.low', view, { factKey: `sequence.low:${range.id}` });
  }
  return { encf: formatEncf(type, sequential), type, series: range.series, sequential, rangeId: range.id, expiresOn: range.expires_on };
}

/** POST /sequences/allocate: hands out the next number on its own (for callers that number documents themselves). */
export async function allocate(engine: Engine, tenantId: string, body: unknown): Promise<AllocatedSequence> {
  const cmd = check(AllocateBody, body);
  await requireTenant(engine.db, tenantId);
  // Settings are read before the transaction: inside it the store's one connection belongs to `tx`.
  const fraction = await getSetting<number>(engine, 'sequences.low_stock_fraction', tenantId);
  const a = await inTransaction(engine.db, (tx) => allocateIn(tx, engine.clock.now(), tenantId, cmd.environment, Number(cmd.type), fraction));
  return { encf: a.encf, type: a.type, series: a.series, sequential: a.sequential };
}

