import { toStoredInstant } from '../clock.js';
import { inTransaction } from '../store/database.js';
import type { TaxauthMessage } from '../taxauth/types.js';
import { loadCases, portalCounts, type CaseRow } from './cases.js';
import type { CaseState } from './plan.js';
import { CONDITIONAL_COUNTS_AS_ACCEPTED, RESEND_CODES, SEQUENCE_USED_CODE, SEQUENCE_USED_COUNTS_AS_ACCEPTED } from './rules.js';
import { recordPasoIn } from './state.js';
import { caseReport, type RunContext } from './run-types.js';

/**
 * What a certification run writes: a case's row in certification_cases
 * (its state, trackId, messages, send and verdict times) and, on a verdict,
 * the Paso's record with the portal's counters. Each write is one
 * transaction, made after the call it records, never around one.
 */

export interface CaseColumns {
  readonly track_id?: string | null;
  readonly messages?: readonly TaxauthMessage[];
  /** Stamp sent_at: the send starts now. */
  readonly sent?: boolean;
  /** Stamp verdict_at: the authority gave its verdict now. */
  readonly verdict?: boolean;
}

/** Moves a case from `from` to `state`, with the given columns; false when another run moved it first. */
export async function moveCase(ctx: RunContext, c: CaseRow, from: CaseState, state: CaseState, set: CaseColumns = {}): Promise<boolean> {
  const now = ctx.engine.clock.now();
  const at = toStoredInstant(now);
  return inTransaction(ctx.engine.db, async (tx) => {
    const r = await tx
      .updateTable('certification_cases')
      .set({
        state,
        updated_at: at,
        ...(set.track_id !== undefined && { track_id: set.track_id }),
        ...(set.messages !== undefined && { messages: JSON.stringify(set.messages) }),
        ...(set.sent && { sent_at: at }),
        ...(set.verdict && { verdict_at: at }),
      })
      .where('id', '=', c.id)
      .where('state', '=', from)
      .executeTakeFirst();
    const moved = Number(r.numUpdatedRows) === 1;
    if (moved && (state === 'accepted' || state === 'rejected')) {
      const all = await loadCases({ db: tx }, ctx.tenantId, ctx.paso, c.generation);
      const counts = ctx.paso === 2 ? portalCounts(all, []) : portalCounts([], all);
      await recordPasoIn(tx, ctx.tenantId, ctx.paso, { state: state === 'rejected' ? 'failed' : 'in_progress', detail: { counts } }, now);
    }
    return moved;
  });
}

/**
 * A verdict: accepted, rejected (with 1209 and conditional acceptances as
 * rules.ts says), `prepared` for a rejection whose codes all mean "send it
 * again" (RESEND_CODES), or null while pending.
 */
export function verdictState(code: number, messages: readonly TaxauthMessage[]): CaseState | null {
  if (code === 1) return 'accepted';
  if (code === 2 && messages.length > 0 && messages.every((m) => RESEND_CODES.has(m.code))) return 'prepared';
  if (code === 4) return CONDITIONAL_COUNTS_AS_ACCEPTED ? 'accepted' : 'rejected';
  if (code === 2) {
    const used = messages.some((m) => m.code === SEQUENCE_USED_CODE);
    return used && SEQUENCE_USED_COUNTS_AS_ACCEPTED ? 'accepted' : 'rejected';
  }
  return null;
}

/** Records a verdict of the case (nothing while pending); a final one is told with the portal's counters. */
export async function recordVerdict(ctx: RunContext, c: CaseRow, from: CaseState, code: number, messages: readonly TaxauthMessage[]): Promise<void> {
  const state = verdictState(code, messages);
  if (!state) return;
  if (state === 'prepared') return void (await moveCase(ctx, c, from, 'prepared', { messages, track_id: null }));
  await moveCase(ctx, c, from, state, { messages, verdict: true });
  const all = await loadCases(ctx.engine, ctx.tenantId, ctx.paso, c.generation);
  const now = all.find((x) => x.id === c.id)!;
  ctx.emit({ type: 'verdict', case: caseReport(now), counts: ctx.paso === 2 ? portalCounts(all, []) : portalCounts([], all) });
}
