import type { Selectable } from 'kysely';
import { dominicanDate, toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError, conflict } from '../errors.js';
import { emit } from '../events/outbox.js';
import { newId } from '../ids.js';
import type { EcfType } from '../documents/payload.js';
import { TYPE_NAMES } from '../documents/types.js';
import { encfOf } from '../documents/encf.js';
import { getSetting } from '../settings/settings.js';
import { inTransaction, type Tx } from '../store/database.js';
import { forUpdate } from '../store/locking.js';
import type { SequenceRangesTable } from '../store/schema.js';
import { prepared } from '../store/prepared.js';
import type { Environment } from '../schema-types.js';
import { requireTenant } from '../tenants/lookup.js';
import { check } from '../validation.js';
import { heldAfterRestore } from './restore-hold.js';
import { AddRangeInput, AllocateBody, type AllocatedSequence, type SequenceRangeView } from './schemas.js';

type Row = Selectable<SequenceRangesTable>;

export const SERIES = 'E';
export const MAX_SEQUENTIAL = 9_999_999_999;
/** Types 32 and 34 have no FechaVencimientoSecuencia, so their ranges never expire (NOTES §8). */
export const NON_EXPIRING: ReadonlySet<number> = new Set([32, 34]);

/** Series, two-digit type, ten-digit number (kept with the documents, which write it into the ANECF). */
export { encfOf };

/** E + two-digit type + ten-digit sequence: E310000000001. */
export const formatEncf = (type: number, sequential: number): string => encfOf(SERIES, type, sequential);

export function rangeView(r: Row, lowStockFraction: number): SequenceRangeView {
  const capacity = r.range_to - r.range_from + 1;
  // Annulled numbers above the pointer will never be handed out.
  const remaining = Math.max(0, r.range_to - r.next + 1 - r.annulled_ahead);
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
    // Ranges of a tenant are added one at a time, or two overlapping ones could both pass the check.
    await requireTenant(tx, cmd.tenantId, { forUpdate: true });
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
      annulled_ahead: 0,
      unverified_since: null,
    };
    await tx.insertInto('sequence_ranges').values(row).execute();
    return row;
  }).then(async (row) => rangeView(row, await getSetting(engine, 'sequences.low_stock_fraction', cmd.tenantId)));
}

export async function listRanges(engine: Engine, tenantId: string): Promise<SequenceRangeView[]> {
  await requireTenant(engine.db, tenantId);
  const fraction = await getSetting(engine, 'sequences.low_stock_fraction', tenantId);
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

// Locked: a concurrent allocation waits, then reads the pointer this one moved.
const openRangesOf = prepared((db, p: { tenantId: string; environment: string; type: number; today: string }) =>
  forUpdate(
    db,
    db
      .selectFrom('sequence_ranges')
      .selectAll()
      .where('tenant_id', '=', p.tenantId)
      .where('environment', '=', p.environment)
      .where('type', '=', p.type)
      .where('active', '=', 1)
      .whereRef('next', '<=', 'range_to')
      .where((eb) => eb.or([eb('expires_on', 'is', null), eb('expires_on', '>=', p.today)]))
      .orderBy('range_from')
      .limit(1),
  ),
);
const movePointer = prepared((db, p: { id: string; from: number; next: number; annulledAhead: number }) =>
  db
    .updateTable('sequence_ranges')
    .set({ next: p.next, annulled_ahead: p.annulledAhead })
    .where('id', '=', p.id)
    .where('next', '=', p.from)
    .returning('id'),
);

/**
 * Takes the next number inside the caller's transaction: from the active,
 * unexpired range with numbers left and the lowest start, stepping over
 * annulled numbers (the pointer never rests on one). A rollback of the
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
  const [range] = await openRangesOf(tx, { tenantId, environment, type, today: dominicanDate(now) });
  if (!range) {
    throw new EngineError(
      'conflict',
      'Sequence.Exhausted',
      `No active, unexpired e-NCF range of type ${type} has numbers left in ${environment}; load one with \`ecf sequence add\`.`,
    );
  }
  if (range.unverified_since !== null) throw heldAfterRestore(range);
  const sequential = range.next;
  const moved =
    range.annulled_ahead > 0 ? await skipAnnulled(tx, range.id, sequential + 1, range.annulled_ahead) : { next: sequential + 1, annulledAhead: 0 };
  const updated = await movePointer(tx, { id: range.id, from: sequential, next: moved.next, annulledAhead: moved.annulledAhead });
  // Never hand out a number whose pointer another writer moved: the transaction fails instead.
  if (updated.length !== 1) throw new EngineError('unavailable', 'Store.Unavailable', 'The e-NCF range changed under this allocation; retry with the same Idempotency-Key.');
  const after = { ...range, next: moved.next, annulled_ahead: moved.annulledAhead };
  const view = rangeView(after, lowStockFraction);
  if (view.remaining === 0) {
    await emit(tx, now, tenantId, 'sequence.exhausted', view, { factKey: `sequence.exhausted:${range.id}` });
  } else if (view.isLowStock) {
    await emit(tx, now, tenantId, 'sequence.low', view, { factKey: `sequence.low:${range.id}` });
  }
  return { encf: formatEncf(type, sequential), type, series: range.series, sequential, rangeId: range.id, expiresOn: range.expires_on };
}

/**
 * Moves a range's pointer past the annulled numbers that start right at it
 * (annulment lines may follow one another), so that `next` is always a
 * number the allocator may hand out, or range_to + 1. `ahead` is the range's
 * count of annulled numbers above the pointer; it shrinks by what is skipped.
 */
export async function skipAnnulled(tx: Tx, rangeId: string, next: number, ahead: number): Promise<{ next: number; annulledAhead: number }> {
  let pointer = next;
  let left = ahead;
  while (left > 0) {
    const line = await tx
      .selectFrom('annulment_lines')
      .select('range_to')
      .where('range_id', '=', rangeId)
      .where('range_from', '=', pointer)
      .executeTakeFirst();
    if (!line) break;
    left -= line.range_to - pointer + 1;
    pointer = line.range_to + 1;
  }
  return { next: pointer, annulledAhead: left };
}

/** The annulment that discarded this e-NCF of the tenant in the environment; null when none did. */
export async function annulmentOf(tx: Tx, tenantId: string, environment: Environment, encf: string): Promise<string | null> {
  const m = /^([A-Z])(\d{2})(\d{10})$/.exec(encf);
  if (!m) return null;
  const n = Number(m[3]);
  const line = await tx
    .selectFrom('annulment_lines')
    .innerJoin('sequence_ranges', 'sequence_ranges.id', 'annulment_lines.range_id')
    .select('annulment_lines.annulment_id')
    .where('sequence_ranges.tenant_id', '=', tenantId)
    .where('sequence_ranges.environment', '=', environment)
    .where('annulment_lines.type', '=', Number(m[2]))
    .where('annulment_lines.series', '=', m[1]!)
    .where('annulment_lines.range_from', '<=', n)
    .where('annulment_lines.range_to', '>=', n)
    .executeTakeFirst();
  return line?.annulment_id ?? null;
}

/** POST /sequences/allocate: hands out the next number on its own (for callers that number documents themselves). */
export async function allocate(engine: Engine, tenantId: string, body: unknown): Promise<AllocatedSequence> {
  const cmd = check(AllocateBody, body);
  await requireTenant(engine.db, tenantId);
  // Settings are read before the transaction: inside it the store's one connection belongs to `tx`.
  const fraction = await getSetting(engine, 'sequences.low_stock_fraction', tenantId);
  const a = await inTransaction(engine.db, (tx) => allocateIn(tx, engine.clock.now(), tenantId, cmd.environment, Number(cmd.type), fraction));
  return { encf: a.encf, type: a.type, series: a.series, sequential: a.sequential };
}

