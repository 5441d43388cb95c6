/**
 * The ladders and classifications the submission pipeline follows. One
 * place, read through the injected clock, so tests move time instead of
 * sleeping.
 */

/**
 * Status queries after a trackId (code 3 "En proceso" or 0 right after
 * sending); when they run out: review. The authority validates in about
 * 200 ms on average (NOTES §4.1), so the first query comes after a second:
 * most verdicts are read on it.
 */
export const POLL_LADDER_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000] as const;

/** Waits after transport failures (5xx, timeouts, connection errors); when they run out: failed. */
export const TRANSPORT_LADDER_MS = [10_000, 30_000, 60_000, 300_000, 900_000, 1_800_000] as const;

/**
 * Waits after the authority answers 429 or 503 (overloaded; its behaviour
 * under load is not documented, so both are "not now, nothing received").
 * Each wait gets up to BUSY_JITTER of itself added at random, so items
 * refused together do not all come back together. Past the last step a
 * busy answer counts as a transport failure (TRANSPORT_LADDER_MS).
 */
export const BUSY_LADDER_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 60_000, 60_000, 60_000, 60_000] as const;
export const BUSY_JITTER = 0.5;

/** An answer that says the authority is overloaded rather than that something is wrong. */
export const isBusy = (error: { readonly kind: string; readonly status: number | null }): boolean =>
  error.kind === 'http' && (error.status === 429 || error.status === 503);

/** Wait before resending the same XML after a transient rejection. */
export const RESEND_DELAY_MS = 30_000;

/**
 * Rejection message codes that say "try again later" rather than "fix the
 * document" (NOTES §13): 614, a note sent before the e-CF it modifies was
 * accepted; 9001, the authority's own "service temporarily unavailable"
 * answer as the sandbox gives it.
 */
export const TRANSIENT_REJECTION_CODES: ReadonlySet<number> = new Set([614, 9001]);

export type Outcome = 'accepted' | 'accepted_conditional' | 'rejected' | 'review' | 'failed';

export const STATUS_TEXT: Record<number, string> = {
  0: 'No encontrado',
  1: 'Aceptado',
  2: 'Rechazado',
  3: 'En Proceso',
  4: 'Aceptado Condicional',
};

/** Final e-CF states: nothing more happens without an operator's retry. */
export const FINAL_STATES: ReadonlySet<string> = new Set(['accepted', 'accepted_conditional', 'rejected', 'review', 'failed']);

/**
 * Why an e-CF cannot be sent again (retryEcf), or null when it can: only
 * `failed`, `review`, or `rejected` when the authority did not consume the
 * e-NCF (sequenceUsed false). Pages ask it to show the retry button only
 * where it would work.
 */
export function retryRefusal(e: { readonly status: string; readonly encf: string; readonly sequenceUsed?: boolean | undefined }): { code: string; message: string } | null {
  if (e.status === 'rejected' && e.sequenceUsed !== false) {
    return { code: 'Ecf.SequenceConsumed', message: `The authority consumed ${e.encf} with this rejection; issue a new e-CF.` };
  }
  if (!['failed', 'review', 'rejected'].includes(e.status)) {
    return { code: 'Ecf.NotRetryable', message: `${e.encf} is ${e.status}; only failed, review, or rejected without a consumed e-NCF can be retried.` };
  }
  return null;
}

/** The rungs of each ladder, as the conversation with the authority counts them (taxauth/conversation.ts). */
export const CONVERSATION_LIMITS = { polls: POLL_LADDER_MS.length, transport: TRANSPORT_LADDER_MS.length, busy: BUSY_LADDER_MS.length } as const;
