import type { Selectable } from 'kysely';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { encfOf } from '../documents/encf.js';
import type { Environment } from '../schema-types.js';
import { inTransaction } from '../store/database.js';
import { forUpdate } from '../store/locking.js';
import type { SequenceRangesTable } from '../store/schema.js';
import { TaxauthError } from '../taxauth/errors.js';
import { requireTenant } from '../tenants/lookup.js';
import { verifyCommandFor } from './restore-hold.js';

/**
 * The authority check of ranges held after a restore (restore-hold.ts): for
 * each held range, ask the authority about its e-NCF one by one from the
 * restored pointer on (consultatrackids, NOTES §4.6: every submission of an
 * e-NCF), move the pointer past the last number it knows, and clear the hold.
 *
 * The authority may not know a number the lost store used (sent late, in
 * contingency, failed) while it knows higher ones, so one unknown number does
 * not end the check: it ends after `lookahead` unknown numbers in a row. The
 * unknown numbers it steps over are reported, for the operator to annul the
 * ones never used. Type 32 under the threshold travels as RFCE, which has no
 * trackId: for type 32 an e-NCF without trackIds is also asked with
 * consultaestado, which answers for RFCE too (NOTES §4.4).
 *
 * Every call is made outside any transaction; the range is then moved and
 * released in one, only if it is still held at the pointer the check began
 * from (else someone settled it meanwhile and it is left as they set it).
 */

/** Unknown numbers in a row after which the check takes the rest of the range as unused. */
export const RESTORE_CHECK_LOOKAHEAD = 50;

export interface RangeCheck {
  readonly rangeId: string;
  readonly environment: Environment;
  readonly type: number;
  readonly rangeFrom: number;
  readonly rangeTo: number;
  /** The pointer the restore brought back. */
  readonly restoredNext: number;
  /** The pointer now: past every number the authority knows (unchanged when the check could not finish). */
  readonly next: number;
  /** `verified`: the hold is cleared; `unchecked`: the authority could not be asked, the range stays held; `settled`: someone cleared it during the check. */
  readonly outcome: 'verified' | 'unchecked' | 'settled';
  /** How many numbers from the restored pointer on the authority knows. */
  readonly known: number;
  /** Numbers below the new pointer that the authority does not know, as from–to runs: annul those that were never used. */
  readonly unknownSkipped: readonly { readonly from: number; readonly to: number }[];
  /** Why the range stays held, and what to do (outcome `unchecked`). */
  readonly error?: string;
}

export interface RestoreCheckOptions {
  readonly environment?: Environment;
  readonly lookahead?: number;
}

type Row = Selectable<SequenceRangesTable>;

/** Runs the check on every held range of the tenant (of one environment if given), one range after another. */
export async function verifyRangesAfterRestore(engine: Engine, tenantId: string, options: RestoreCheckOptions = {}): Promise<RangeCheck[]> {
  const tenant = await requireTenant(engine.db, tenantId);
  const lookahead = options.lookahead ?? RESTORE_CHECK_LOOKAHEAD;
  if (!Number.isInteger(lookahead) || lookahead < 1 || lookahead > 10_000) {
    throw new EngineError('validation', 'Sequence.LookaheadOutOfBounds', `lookahead must be a whole number from 1 to 10000 (got ${lookahead}).`);
  }
  let q = engine.db.selectFrom('sequence_ranges').selectAll().where('tenant_id', '=', tenantId).where('unverified_since', 'is not', null);
  if (options.environment) q = q.where('environment', '=', options.environment);
  const held = await q.orderBy('environment').orderBy('type').orderBy('range_from').execute();
  const out: RangeCheck[] = [];
  for (const range of held) out.push(await checkRange(engine, tenant.rnc, range, lookahead));
  return out;
}

async function checkRange(engine: Engine, rnc: string, range: Row, lookahead: number): Promise<RangeCheck> {
  const environment = range.environment as Environment;
  const base = { rangeId: range.id, environment, type: range.type, rangeFrom: range.range_from, rangeTo: range.range_to, restoredNext: range.next };
  const annulled = await engine.db.selectFrom('annulment_lines').select(['range_from', 'range_to']).where('range_id', '=', range.id).orderBy('range_from').execute();
  const annulledAt = (n: number) => annulled.find((l) => l.range_from <= n && n <= l.range_to);

  let lastKnown: number | null = null;
  let known = 0;
  const unknown: number[] = [];
  try {
    const client = await engine.taxauth.client(environment);
    const withToken = <T>(fn: (token: string) => Promise<T>) => engine.taxauth.withToken(range.tenant_id, environment, fn);
    const knows = async (n: number): Promise<boolean> => {
      const encf = encfOf(range.series, range.type, n);
      if ((await withToken((t) => client.trackIds(t, rnc, encf))).length > 0) return true;
      return range.type === 32 && (await withToken((t) => client.status(t, { rnc, encf }))).code !== 0;
    };
    let misses = 0;
    for (let n = range.next; n <= range.range_to && misses < lookahead; n++) {
      // Annulled numbers were never used and the allocator steps over them: nothing to ask.
      const line = annulledAt(n);
      if (line) {
        n = line.range_to;
        continue;
      }
      if (await knows(n)) {
        lastKnown = n;
        known++;
        misses = 0;
      } else {
        unknown.push(n);
        misses++;
      }
    }
  } catch (e) {
    if (!(e instanceof TaxauthError) && !(e instanceof EngineError)) throw e;
    const error =
      `${e.message} The range stays held: run \`${verifyCommandFor(range)}\` again once the authority answers, ` +
      'or, if you know its next unused number, set it with `ecf sequence next`.';
    return { ...base, next: range.next, outcome: 'unchecked', known: 0, unknownSkipped: [], error };
  }

  const target = lastKnown === null ? range.next : lastKnown + 1;
  const unknownSkipped = runsOf(unknown.filter((n) => n < target));
  const moved = await inTransaction(engine.db, async (tx) => {
    const now = await forUpdate(tx, tx.selectFrom('sequence_ranges').selectAll().where('id', '=', range.id)).executeTakeFirst();
    if (!now || now.unverified_since === null || now.next !== range.next) return null;
    const { next, annulledAhead } = target === range.next ? { next: range.next, annulledAhead: range.annulled_ahead } : pointerAt(annulled, target);
    await tx.updateTable('sequence_ranges').set({ next, annulled_ahead: annulledAhead, unverified_since: null }).where('id', '=', range.id).execute();
    return next;
  });
  if (moved === null) {
    const now = await engine.db.selectFrom('sequence_ranges').select('next').where('id', '=', range.id).executeTakeFirstOrThrow();
    return { ...base, next: now.next, outcome: 'settled', known, unknownSkipped };
  }
  engine.log.info(
    { tenantId: range.tenant_id, rangeId: range.id, environment, type: range.type, restoredNext: range.next, next: moved, known, unknownSkipped },
    'e-NCF range checked with the tax authority after a restore and released',
  );
  return { ...base, next: moved, outcome: 'verified', known, unknownSkipped };
}

/** The pointer at or after `n` that rests on no annulled number, and the annulled numbers left above it. */
function pointerAt(annulled: readonly { range_from: number; range_to: number }[], n: number): { next: number; annulledAhead: number } {
  let next = n;
  for (const line of annulled) if (line.range_from <= next && next <= line.range_to) next = line.range_to + 1;
  const annulledAhead = annulled.reduce((sum, l) => sum + Math.max(0, l.range_to - Math.max(l.range_from, next) + 1), 0);
  return { next, annulledAhead };
}

function runsOf(numbers: readonly number[]): { from: number; to: number }[] {
  const runs: { from: number; to: number }[] = [];
  for (const n of numbers) {
    const last = runs.at(-1);
    if (last && last.to + 1 === n) last.to = n;
    else runs.push({ from: n, to: n });
  }
  return runs;
}
