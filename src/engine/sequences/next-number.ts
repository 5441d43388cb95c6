import type { Selectable } from 'kysely';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError } from '../errors.js';
import { getSetting } from '../settings/settings.js';
import { inTransaction, type Tx } from '../store/database.js';
import { forUpdate } from '../store/locking.js';
import type { SequenceRangesTable } from '../store/schema.js';
import type { Environment } from '../schema-types.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { check } from '../validation.js';
import { MAX_SEQUENTIAL, formatEncf, rangeView } from './ranges.js';
import { NextNumberQuery, SetNextInput, type SequenceRangeView } from './schemas.js';

type Row = Selectable<SequenceRangesTable>;

export interface NextNumberView {
  readonly environment: Environment;
  readonly type: number;
  /** The number the type hands out next (the lowest active range with numbers left); null when none is left. */
  readonly next: number | null;
  readonly nextEncf: string | null;
  /** Every range of the type in the environment. */
  readonly ranges: readonly SequenceRangeView[];
}

export interface NextNumberResult extends NextNumberView {
  /** What the type would have handed out before the move; null when no range had numbers left. */
  readonly previous: number | null;
  readonly previousEncf: string | null;
  /** The range pointed to was held after a restore (restore-hold.ts); setting its next number is the operator's word that it is unused, so the hold is gone. */
  readonly releasedAfterRestore: boolean;
}

const openNext = (ranges: readonly Row[]): number | null => ranges.find((r) => r.active === 1 && r.next <= r.range_to)?.next ?? null;

/** `ecf sequence next` without --set: the number a type hands out next in an environment, and its ranges. */
export async function nextNumber(engine: Engine, input: unknown): Promise<NextNumberView> {
  const query = check(NextNumberQuery, input);
  const { tenantId, environment } = query;
  const type = Number(query.type);
  await requireTenant(engine.db, tenantId);
  const fraction = await getSetting(engine, 'sequences.low_stock_fraction', tenantId);
  const rows = await engine.db
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('environment', '=', environment)
    .where('type', '=', type)
    .orderBy('range_from')
    .execute();
  const next = openNext(rows);
  return { environment, type, next, nextEncf: next === null ? null : formatEncf(type, next), ranges: rows.map((r) => rangeView(r, fraction)) };
}

/**
 * Sets the number a type hands out next in an environment (`ecf sequence
 * next --set`): the range holding it points there, and every lower range of
 * the type is closed, since the allocator takes the lowest range first and
 * would otherwise hand out its older numbers. Forward is always safe: the
 * numbers stepped over are simply never used. Backwards needs `backwards:
 * true` and is refused at or below a number the store knows used (an e-CF
 * it issued, a Paso 2 case of the certification), because the authority
 * refuses an e-NCF twice; numbers handed out by POST /sequences/allocate
 * leave no record, so the caller vouches for those. Setting a range held
 * after a restore, even to the number it already points at, releases it:
 * the operator states that number unused, as the authority check would.
 */
export async function setNextNumber(engine: Engine, input: unknown): Promise<NextNumberResult> {
  const cmd = check(SetNextInput, input);
  const type = Number(cmd.type);
  const next = Number(cmd.next);
  if (next < 1 || next > MAX_SEQUENTIAL) {
    throw new ValidationError([{ path: 'next', code: 'Sequence.OutOfBounds', message: `must be from 1 to ${MAX_SEQUENTIAL}` }]);
  }
  const fraction = await getSetting(engine, 'sequences.low_stock_fraction', cmd.tenantId);
  const { rows, previous, releasedAfterRestore } = await inTransaction(engine.db, async (tx) => {
    await requireTenant(tx, cmd.tenantId);
    // Locked: an allocation waits for the move, and reads the pointer it left.
    const ranges = await forUpdate(
      tx,
      tx
        .selectFrom('sequence_ranges')
        .selectAll()
        .where('tenant_id', '=', cmd.tenantId)
        .where('environment', '=', cmd.environment)
        .where('type', '=', type)
        .orderBy('range_from'),
    ).execute();
    const target = ranges.find((r) => r.range_from <= next && next <= r.range_to) ?? ranges.find((r) => next === r.range_to + 1);
    if (!target) {
      const loaded = ranges.map((r) => `${r.range_from}–${r.range_to}`).join(', ');
      throw new ValidationError([
        {
          path: 'next',
          code: 'Sequence.OutsideRange',
          message: `${next} is in no loaded range of type ${type} in ${cmd.environment} (${loaded ? `loaded: ${loaded}` : 'none is loaded; add one with `ecf sequence add`'})`,
        },
      ]);
    }
    const previous = openNext(ranges);
    if (next < target.next) {
      const used = await highestUsed(tx, cmd.tenantId, cmd.environment, type, next, target.range_to);
      if (used !== null) {
        throw new EngineError(
          'conflict',
          'Sequence.NumbersUsed',
          `${formatEncf(type, next)} is at or below ${formatEncf(type, used)}, which this tenant already used in ${cmd.environment}; the authority never accepts an e-NCF twice. The lowest number type ${type} may hand out from this range is ${used + 1}.`,
        );
      }
      if (!cmd.backwards) {
        throw new EngineError(
          'conflict',
          'Sequence.Backwards',
          `The range ${target.range_from}–${target.range_to} of type ${type} in ${cmd.environment} hands out ${target.next} next; moving it back to ${next} would hand out ${next}–${target.next - 1} again. No e-CF of this store uses them, but numbers given by POST /sequences/allocate leave no record: add --backwards if none of them was used.`,
        );
      }
    }
    const releasedAfterRestore = target.unverified_since !== null;
    const moved: Row[] = [];
    for (const r of ranges) {
      if (r.id === target.id) moved.push(await pointTo(tx, r, next));
      // A lower range is closed (its pointer only ever moves forward); a higher one keeps its pointer.
      else if (r.range_to < next && r.next <= r.range_to) moved.push(await pointTo(tx, r, r.range_to + 1));
      else moved.push(r);
    }
    return { rows: moved, previous, releasedAfterRestore };
  });
  const now = openNext(rows);
  return {
    environment: cmd.environment,
    type,
    next: now,
    nextEncf: now === null ? null : formatEncf(type, now),
    previous,
    previousEncf: previous === null ? null : formatEncf(type, previous),
    releasedAfterRestore,
    ranges: rows.map((r) => rangeView(r, fraction)),
  };
}

/** Moves a range's pointer to `to`, past any annulled numbers it lands on, recounts the annulled numbers above it, and releases a hold after a restore. */
async function pointTo(tx: Tx, range: Row, to: number): Promise<Row> {
  const lines = await tx
    .selectFrom('annulment_lines')
    .select(['range_from', 'range_to'])
    .where('range_id', '=', range.id)
    .orderBy('range_from')
    .execute();
  let pointer = to;
  for (const l of lines) if (l.range_from <= pointer && pointer <= l.range_to) pointer = l.range_to + 1;
  const ahead = lines.filter((l) => l.range_from >= pointer).reduce((sum, l) => sum + (l.range_to - l.range_from + 1), 0);
  await tx.updateTable('sequence_ranges').set({ next: pointer, annulled_ahead: ahead, unverified_since: null }).where('id', '=', range.id).execute();
  return { ...range, next: pointer, annulled_ahead: ahead, unverified_since: null };
}

/** The highest number from `from` to `to` of the type that the store knows used: an e-CF it issued, or a Paso 2 case it signed. */
async function highestUsed(tx: Tx, tenantId: string, environment: Environment, type: number, from: number, to: number): Promise<number | null> {
  const low = formatEncf(type, from);
  const high = formatEncf(type, to);
  const issued = await tx
    .selectFrom('ecf')
    .select((eb) => eb.fn.max('encf').as('encf'))
    .where('tenant_key', '=', await tenantKey(tx, tenantId))
    .where('environment', '=', environment)
    .where('encf', '>=', low)
    .where('encf', '<=', high)
    .executeTakeFirst();
  // The certification's Paso 2 cases are the tenant's own numbers in cert, sent from the workbook, not from a range.
  const cases =
    environment === 'cert'
      ? await tx
          .selectFrom('certification_cases')
          .select((eb) => eb.fn.max('encf').as('encf'))
          .where('tenant_id', '=', tenantId)
          .where('paso', '=', 2)
          .where('encf', '>=', low)
          .where('encf', '<=', high)
          .executeTakeFirst()
      : undefined;
  const numbers = [issued?.encf, cases?.encf].filter((e): e is string => typeof e === 'string').map((e) => Number(e.slice(3)));
  return numbers.length ? Math.max(...numbers) : null;
}
