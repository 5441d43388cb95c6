/**
 * The send order of a certification set (CERTIFICATION.md §2.7). The
 * workbook's row order is not a valid order: a note (33, 34) may be sent only
 * after the authority has accepted the e-CF it modifies (else code 614), and
 * a rejection anywhere resets the set, so nothing more is sent after one.
 *
 * Phases, each only once everything before it is final and accepted:
 *   1. the ordinary e-CF (every type but the notes and the consumo 32s);
 *   2. the RFCE summaries of the consumo 32s (their full e-CF is not sent:
 *      the person uploads it in the portal);
 *   3. the notes, each once the e-CF it modifies is accepted.
 */

export type CaseState =
  /** Read from the workbook; not yet built. */
  | 'imported'
  /** Built, signed and checked against its XSD; the bytes are stored. */
  | 'prepared'
  /** A send started: until the authority is asked, nobody knows whether it arrived. */
  | 'sending'
  /** Received by the authority (a trackId); the verdict is pending. */
  | 'sent'
  | 'accepted'
  | 'rejected'
  /** A consumo e-CF 32 under DOP 250,000: prepared, to be uploaded by hand in the portal. */
  | 'upload';

export type Phase = 'ecf' | 'rfce' | 'note' | 'upload' | 'approval';

export interface PlannedCase {
  readonly id: string;
  readonly kind: string;
  readonly encf: string;
  readonly modifiesEncf: string | null;
  readonly state: CaseState;
  readonly phase: Phase;
}

export const FINAL: ReadonlySet<CaseState> = new Set(['accepted', 'rejected', 'upload']);

const isNote = (kind: string) => kind === 'ecf33' || kind === 'ecf34';

/** Which phase a case belongs to: the consumo 32s are the type-32 rows the RFCE sheet names. */
export function phaseOf(kind: string, encf: string, rfceEncfs: ReadonlySet<string>): Phase {
  if (kind === 'acecf') return 'approval';
  if (kind === 'rfce') return 'rfce';
  if (kind === 'ecf32' && rfceEncfs.has(encf)) return 'upload';
  return isNote(kind) ? 'note' : 'ecf';
}

export type NextStep<C extends PlannedCase = PlannedCase> =
  | { readonly kind: 'send'; readonly cases: readonly C[] }
  /** Sent cases await their verdicts before anything else may go. */
  | { readonly kind: 'wait'; readonly pending: readonly C[] }
  | { readonly kind: 'stopped'; readonly rejected: readonly C[] }
  | { readonly kind: 'done' }
  /** Notes whose original is not accepted and never will be in this set. */
  | { readonly kind: 'blocked'; readonly cases: readonly C[]; readonly reason: string };

const PHASES: readonly Phase[] = ['ecf', 'rfce', 'note', 'approval'];

/**
 * What to do next, from the cases' states alone: so a run resumed after a
 * crash decides exactly as the one that died would have. Cases still
 * `imported` or `sending` must be prepared or settled before planning.
 */
export function nextStep<C extends PlannedCase>(cases: readonly C[]): NextStep<C> {
  const rejected = cases.filter((c) => c.state === 'rejected');
  if (rejected.length > 0) return { kind: 'stopped', rejected };
  const inFlight = cases.filter((c) => c.state === 'sent' || c.state === 'sending');
  if (inFlight.length > 0) return { kind: 'wait', pending: inFlight };
  const accepted = new Set(cases.filter((c) => c.state === 'accepted').map((c) => c.encf));
  for (const phase of PHASES) {
    const open = cases.filter((c) => c.phase === phase && c.state !== 'accepted');
    if (open.length === 0) continue;
    if (phase !== 'note') return { kind: 'send', cases: open };
    const setEncfs = new Set(cases.map((c) => c.encf));
    const ready = open.filter((c) => c.modifiesEncf === null || accepted.has(c.modifiesEncf) || !setEncfs.has(c.modifiesEncf));
    if (ready.length > 0) return { kind: 'send', cases: ready };
    return { kind: 'blocked', cases: open, reason: 'the e-CF they modify is not accepted' };
  }
  return { kind: 'done' };
}
