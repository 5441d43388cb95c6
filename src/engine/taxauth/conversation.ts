/*
 * One exchange with the tax authority as a pure state machine: what to do
 * next, given where the exchange stands and what just happened. No store,
 * clock or network here: the areas that talk to the authority (submission,
 * certification runs, annulments, deliveries) do the calls and the writes,
 * and ask this file which move comes next. Waits are named by ladder and
 * rung; each area turns them into times with its own rules.ts.
 *
 *   prepared ──send──▶ sending ──receipt──▶ answered ──pending──▶ answered (wait, poll)
 *       ▲                 │  └──verdict──▶ settled                 └──verdict──▶ settled
 *       │                 ├──lost (timeout, dropped)──▶ unclear ──ask──▶ asking
 *       │                 ├──401──▶ expired-token ──renewed──▶ (the same call, once)
 *       │                 ├──429/503──▶ busy ──wait──▶ (back where it was)
 *       │                 └──definite 4xx──▶ refused (final)
 *       └──────────── not received ◀── asking ──received──▶ answered
 */

/** Where one exchange stands. */
export type Phase =
  /** Nothing in flight and nothing in doubt: the next move is a send. */
  | 'prepared'
  /** A send is in flight (the area has marked it, so a crash leaves it unclear). */
  | 'sending'
  /** A send may have reached the authority without us hearing back: ask before sending again. */
  | 'unclear'
  /** Asking the authority whether it received the unclear send. */
  | 'asking'
  /** The authority holds it (a receipt or trackId): ask for its verdict. */
  | 'answered'
  /** The authority said "not now" (429, 503): wait, then go back where it was. */
  | 'busy'
  /** The token was refused (401): renew it once, then make the same call again. */
  | 'expired-token'
  /** The authority refused the document for good (a definite 4xx): final. */
  | 'refused'
  /** A verdict arrived and is recorded by the area: final. */
  | 'settled'
  /** Out of rungs (unreachable too long, no verdict in time) or an answer nobody can read: final. */
  | 'given-up';

export interface Conversation {
  readonly phase: Phase;
  /** A send may have reached the authority unheard; stays set until the authority is asked, or answers a send. */
  readonly doubt: boolean;
  /** The authority's receipt, once it has one. */
  readonly trackId?: string;
  /** Verdict queries answered "still processing", in a row. */
  readonly polls: number;
  /** Calls that could not reach the authority, in a row. */
  readonly failures: number;
  /** "Not now" answers (429, 503) in a row. */
  readonly busy: number;
  /** The token was renewed during the current call: a second 401 is not renewed again. */
  readonly renewed: boolean;
  /** Where a busy or expired-token exchange goes back to. */
  readonly resume?: Resumable;
}

/** The phases a call is made from. */
type Resumable = 'prepared' | 'unclear' | 'sending' | 'asking' | 'answered';

/** What happened: the answer to the last call, or its failure as eventOfError reads it. */
export type ConversationEvent =
  /** The send was answered with a receipt (asynchronous: a verdict comes later). */
  | { readonly type: 'receipt'; readonly trackId: string }
  /** A final verdict: a synchronous send's answer, a poll's, or an acceptance found by asking. */
  | { readonly type: 'verdict' }
  /** The verdict was a rejection the area's policy resends (a transient code): the same bytes go again. */
  | { readonly type: 'resend' }
  /** A verdict query answered "still processing" (or "not found" right after the send). */
  | { readonly type: 'pending' }
  /** Asked about an unclear send: the authority has it, under this trackId. */
  | { readonly type: 'received'; readonly trackId: string }
  /** Asked about an unclear send: the authority does not have it. */
  | { readonly type: 'not-received' }
  /** The call timed out or lost its connection: it may have arrived. */
  | { readonly type: 'lost' }
  /** The authority answered an error worth trying again later (5xx, 408): nothing was received. */
  | { readonly type: 'unreachable' }
  /** 429 or 503: the authority is overloaded. */
  | { readonly type: 'busy' }
  /** 401: the token was refused. */
  | { readonly type: 'token-expired' }
  /** A new token was obtained after a 401. */
  | { readonly type: 'renewed' }
  /** A definite refusal of the document (a 4xx other than 401, 408, 429). */
  | { readonly type: 'refused' }
  /** An answer that cannot be read, or an error no retry mends. */
  | { readonly type: 'broken' };

export type Ladder = 'poll' | 'transport' | 'busy' | 'resend';

/** What to do next. */
export type Command =
  | { readonly do: 'send' }
  /** Ask whether the unclear send arrived (consultatrackids, or the RFCE's status). */
  | { readonly do: 'ask' }
  /** Ask for the verdict of the receipt. */
  | { readonly do: 'poll' }
  /** Record the receipt, then poll after the first rung of the poll ladder. */
  | { readonly do: 'follow'; readonly trackId: string }
  /** Wait on a rung of a ladder, then begin again. */
  | { readonly do: 'wait'; readonly ladder: Ladder; readonly rung: number }
  | { readonly do: 'renew-token' }
  /** Record the verdict (the area reads it, its policy may still resend). */
  | { readonly do: 'record-verdict' }
  | { readonly do: 'give-up'; readonly why: 'refused' | 'unreachable' | 'no-verdict' | 'broken' | 'token' }
  /** Nothing to do: the exchange is final. */
  | { readonly do: 'stop' };

/** How many rungs each ladder has: the area's policy. */
export interface Limits {
  readonly polls: number;
  readonly transport: number;
  readonly busy: number;
}

export interface Move {
  readonly state: Conversation;
  readonly command: Command;
}

export const FINAL_PHASES: ReadonlySet<Phase> = new Set(['refused', 'settled', 'given-up']);

/** A new exchange: nothing sent; or one a previous send left in doubt. */
export const prepared = (doubt = false): Conversation => ({ phase: doubt ? 'unclear' : 'prepared', doubt, polls: 0, failures: 0, busy: 0, renewed: false });

/** An exchange whose document the authority holds under `trackId`. */
export const answered = (trackId: string, polls = 0): Conversation => ({ phase: 'answered', doubt: false, trackId, polls, failures: 0, busy: 0, renewed: false });

/** The call a phase makes. */
const CALL_OF = { prepared: 'send', sending: 'send', unclear: 'ask', asking: 'ask', answered: 'poll' } as const;
/** The phase a call is in while it runs. */
const RUNNING = { send: 'sending', ask: 'asking', poll: 'answered' } as const;

/** The first move of a claim: the call the exchange's phase calls for. */
export function begin(state: Conversation): Move {
  if (FINAL_PHASES.has(state.phase)) return { state, command: { do: 'stop' } };
  const at = state.phase === 'busy' || state.phase === 'expired-token' ? (state.resume ?? 'prepared') : (state.phase as Resumable);
  const call = CALL_OF[at];
  return { state: { ...state, phase: RUNNING[call], resume: undefined, renewed: false }, command: { do: call } };
}

/** Where a failed call goes back to when it is tried again. */
function retreat(state: Conversation): 'unclear' | 'prepared' | 'answered' {
  // A failure while renewing a token belongs to the call the renewal was for.
  const at = state.phase === 'expired-token' || state.phase === 'busy' ? (state.resume ?? 'prepared') : state.phase;
  if (at === 'answered') return 'answered';
  return state.doubt || at === 'asking' || at === 'unclear' ? 'unclear' : 'prepared';
}

/** The next move after `event`, from `state`. */
export function step(state: Conversation, event: ConversationEvent, limits: Limits): Move {
  if (FINAL_PHASES.has(state.phase)) return { state, command: { do: 'stop' } };
  const heard = { ...state, renewed: false, busy: 0, failures: 0 };
  switch (event.type) {
    case 'receipt':
    case 'received':
      return { state: { ...heard, phase: 'answered', doubt: false, trackId: event.trackId, polls: 0 }, command: { do: 'follow', trackId: event.trackId } };
    case 'verdict':
      return { state: { ...heard, phase: 'settled', doubt: false }, command: { do: 'record-verdict' } };
    case 'resend':
      return { state: { ...heard, phase: 'prepared', doubt: false, trackId: undefined, polls: 0 }, command: { do: 'wait', ladder: 'resend', rung: 0 } };
    case 'pending': {
      const polls = state.polls + 1;
      if (polls >= limits.polls) return { state: { ...heard, phase: 'given-up', polls }, command: { do: 'give-up', why: 'no-verdict' } };
      return { state: { ...heard, phase: 'answered', polls }, command: { do: 'wait', ladder: 'poll', rung: polls } };
    }
    case 'not-received':
      // The one way out of doubt without an answer to the send itself: the authority said it has nothing.
      return { state: { ...state, phase: 'sending', renewed: false }, command: { do: 'send' } };
    case 'lost':
    case 'unreachable': {
      const failures = state.failures + 1;
      const doubt = state.doubt || (event.type === 'lost' && state.phase === 'sending');
      if (failures > limits.transport) return { state: { ...state, phase: 'given-up', failures, doubt }, command: { do: 'give-up', why: 'unreachable' } };
      return { state: { ...state, phase: retreat({ ...state, doubt }), failures, doubt, renewed: false }, command: { do: 'wait', ladder: 'transport', rung: failures - 1 } };
    }
    case 'busy': {
      // Past the busy ladder a busy answer counts as a failure to reach the authority.
      if (state.busy >= limits.busy) return step(state, { type: 'unreachable' }, limits);
      const busy = state.busy + 1;
      return { state: { ...state, phase: 'busy', resume: retreat(state), busy, renewed: false }, command: { do: 'wait', ladder: 'busy', rung: busy - 1 } };
    }
    case 'token-expired':
      // One renewal per call: a token refused twice in a row is not a token problem.
      if (state.renewed || state.phase === 'expired-token') return { state: { ...state, phase: 'given-up' }, command: { do: 'give-up', why: 'token' } };
      return { state: { ...state, phase: 'expired-token', resume: state.phase as Resumable, renewed: true }, command: { do: 'renew-token' } };
    case 'renewed': {
      if (state.phase !== 'expired-token') return { state, command: { do: 'stop' } };
      const at = state.resume ?? 'prepared';
      const call = CALL_OF[at];
      return { state: { ...state, phase: RUNNING[call], resume: undefined }, command: { do: call } };
    }
    case 'refused':
      return { state: { ...state, phase: 'refused' }, command: { do: 'give-up', why: 'refused' } };
    case 'broken':
      return { state: { ...state, phase: 'given-up' }, command: { do: 'give-up', why: 'broken' } };
  }
}

/** How the authority's failures read as events: the one place that tells a definite refusal from a "try later". */
export function eventOfError(e: { readonly kind: string; readonly status: number | null; readonly transient: boolean }): ConversationEvent {
  if (e.kind === 'http' && e.status === 401) return { type: 'token-expired' };
  if (e.kind === 'http' && (e.status === 429 || e.status === 503)) return { type: 'busy' };
  if (e.kind === 'timeout' || e.kind === 'network') return { type: 'lost' };
  if (e.transient) return { type: 'unreachable' };
  if (e.kind === 'http') return { type: 'refused' };
  return { type: 'broken' };
}

/** A definite refusal of the document itself: a 4xx answer other than 401, 408 and 429. */
export const isDefiniteRefusal = (e: { readonly kind: string; readonly status: number | null; readonly transient: boolean }): boolean => eventOfError(e).type === 'refused';
