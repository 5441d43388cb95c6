import { Type, type Static } from '@sinclair/typebox';
import type { Environment } from '../schema-types.js';
import type { Tx } from '../store/database.js';
import { checkJsonColumn } from '../json-column.js';
import { enqueue, type WorkItem } from '../work/queue.js';
import { laneOf, taxauthGroup } from '../work/lanes.js';
import { currentRequestId } from '../log/request-id.js';
import { answered, prepared, type Conversation } from '../taxauth/conversation.js';
import { TRANSPORT_LADDER_MS } from './rules.js';

/*
 * An e-CF's sending state, and where each part of it lives, once:
 *
 *   ecf.status    the contract's state (signed until a verdict);
 *   ecf.taxauth   what the authority said: its receipt (the trackId, kept here
 *                 only), verdict and messages;
 *   ecf.retry     the automatic resends after a transient rejection;
 *   work          while the e-CF is being sent, its `ecf.submit` item: when the
 *                 next move runs (due_at, lease) and, as its payload, where the
 *                 conversation with the authority stands (below).
 *
 * The payload is the conversation's own state (taxauth/conversation.ts) as it
 * rests between two claims: no copy of anything the e-CF row holds.
 * sending-view.ts reads the four together for the API, the CLI and the console.
 */

export const SUBMIT_KIND = 'ecf.submit';

const Count = Type.Optional(Type.Integer({ minimum: 0 }));

/** The `ecf.submit` payload (migration 0030): the conversation at rest. */
export const SendingState = Type.Object({
  /**
   * Where the next claim begins: `prepared` sends; `unclear` asks first whether
   * a send that got no answer arrived; `answered` asks the verdict of the
   * receipt in ecf.taxauth.
   */
  phase: Type.Union([Type.Literal('prepared'), Type.Literal('unclear'), Type.Literal('answered')]),
  /** Verdict queries answered "still processing", in a row. */
  polls: Count,
  /** Calls that could not reach the authority, in a row. */
  failures: Count,
  /** 429 and 503 answers in a row: the authority is overloaded, not unreachable. */
  busy: Count,
  /** When the send that left the exchange unclear began (ISO): a holder that died mid-send is asked about from it. */
  sentAt: Type.Optional(Type.String()),
  /** The API request that made or re-queued the e-CF: its later state changes carry it as `reqId` (log/request-id.ts). */
  requestId: Type.Optional(Type.String()),
});
export type SendingState = Static<typeof SendingState>;

/** The payload of a submission's work item, checked against its schema. */
export const sendingStateOf = (item: Pick<WorkItem, 'id' | 'payload'>): SendingState =>
  checkJsonColumn(SendingState, item.payload ?? { phase: 'prepared' }, `work.payload (ecf.submit ${item.id})`);

/** The conversation a claim resumes: its receipt, when it has one, is the e-CF row's. */
export function conversationOf(state: SendingState, trackId: string | undefined): Conversation {
  const counts = { failures: state.failures ?? 0, busy: state.busy ?? 0 };
  if (state.phase === 'answered' && trackId) return { ...answered(trackId, state.polls ?? 0), ...counts };
  // Answered without a receipt on the row cannot be followed: ask what the authority has rather than send again.
  return { ...prepared(state.phase !== 'prepared'), ...counts };
}

/**
 * The conversation at rest, to be kept until the next claim: a busy or
 * expired-token exchange rests where it goes back to; the request it belongs
 * to is carried over.
 */
export function restingState(c: Conversation, before: SendingState, extra: { sentAt?: string } = {}): SendingState {
  const at = c.phase === 'busy' || c.phase === 'expired-token' ? (c.resume ?? 'prepared') : c.phase;
  const phase = at === 'answered' ? 'answered' : at === 'unclear' || at === 'asking' || c.doubt ? 'unclear' : 'prepared';
  return {
    phase,
    ...(phase === 'answered' && c.polls > 0 && { polls: c.polls }),
    ...(c.failures > 0 && { failures: c.failures }),
    ...(c.busy > 0 && { busy: c.busy }),
    ...(extra.sentAt && { sentAt: extra.sentAt }),
    ...(before.requestId && { requestId: before.requestId }),
  };
}

/**
 * The lane of a submission: sends and status queries of a tenant are two
 * lanes, so a backlog of sends never delays the verdicts of e-CF already
 * sent; all of an environment's lanes share its concurrency bound.
 */
export const submissionLane = (environment: Environment, tenantId: string, state: Pick<SendingState, 'phase'>): string =>
  laneOf(taxauthGroup(environment), tenantId, state.phase === 'answered' ? 'poll' : 'send');

/** Queues the submission of an e-CF; call in the transaction that stores or re-queues it. */
export function queueSubmission(tx: Tx, now: Date, ecf: { id: string; tenantId: string; environment: Environment }, state: SendingState = { phase: 'prepared' }) {
  const requestId = currentRequestId();
  const payload = requestId && !state.requestId ? { ...state, requestId } : state;
  return enqueue(tx, now, { kind: SUBMIT_KIND, tenantId: ecf.tenantId, ref: ecf.id, lane: submissionLane(ecf.environment, ecf.tenantId, state), payload });
}

/**
 * When a submission taken over from a process that died (work/holder.ts) may
 * run: a send it may have had in flight (unclear) is asked about when that
 * process would have asked had it lived, its call timed out and the transport
 * ladder's first step waited, so the authority has had the time it may still
 * spend on a request whose sender left; anything else at once (null).
 */
export function resumeAfterHolderDied(item: WorkItem, now: Date, timeoutMs: number): Date | null {
  let state: SendingState;
  try {
    state = sendingStateOf(item);
  } catch {
    // A damaged payload is the handler's to report (Store.ColumnDamaged on its claim), not the takeover's.
    return null;
  }
  if (state.phase !== 'unclear') return null;
  // Unclear without its time (a stop's hand-back keeps none): from now.
  const sentAt = state.sentAt ? Date.parse(state.sentAt) : now.getTime();
  return new Date(Math.max(now.getTime(), sentAt + timeoutMs + TRANSPORT_LADDER_MS[0]));
}
