import type { Environment } from '../schema-types.js';
import type { Tx } from '../store/database.js';
import { enqueue, type WorkItem } from '../work/queue.js';
import { laneOf, taxauthGroup } from '../work/lanes.js';
import { currentRequestId } from '../log/request-id.js';
import { answered, prepared, type Conversation } from '../taxauth/conversation.js';
import { TRANSPORT_LADDER_MS } from './rules.js';

export const SUBMIT_KIND = 'ecf.submit';

/** Where one e-CF's submission stands between two runs of the job. */
export interface SubmitState {
  readonly phase: 'send' | 'poll';
  readonly trackId?: string;
  readonly polls?: number;
  readonly transportFailures?: number;
  /** 429 and 503 answers in a row: the authority is overloaded, not unreachable. */
  readonly busyAnswers?: number;
  /**
   * The last send may have reached the authority without us hearing back
   * (timeout, dropped connection): ask what it has before sending again.
   */
  readonly unclear?: boolean;
  /** When the send marked unclear began (ISO): a holder that died mid-send is asked about from it. */
  readonly sentAt?: string;
  /** The API request that made or re-queued the e-CF: its later state changes carry it as `reqId` (log/request-id.ts). */
  readonly requestId?: string;
}

/** What a fresh state keeps of the one before it: the request it belongs to. */
export const carried = (state: SubmitState | null): Pick<SubmitState, 'requestId'> => (state?.requestId ? { requestId: state.requestId } : {});

/**
 * The lane of a submission: sends and status queries of a tenant are two
 * lanes, so a backlog of sends never delays the verdicts of e-CF already
 * sent; all of an environment's lanes share its concurrency bound.
 */
export const submissionLane = (environment: Environment, tenantId: string, phase: SubmitState['phase']): string =>
  laneOf(taxauthGroup(environment), tenantId, phase);

/** Queues the submission of an e-CF; call in the transaction that stores or re-queues it. */
export function queueSubmission(tx: Tx, now: Date, ecf: { id: string; tenantId: string; environment: Environment }, state: SubmitState = { phase: 'send' }) {
  const requestId = currentRequestId();
  const payload = requestId && !state.requestId ? { ...state, requestId } : state;
  return enqueue(tx, now, { kind: SUBMIT_KIND, tenantId: ecf.tenantId, ref: ecf.id, lane: submissionLane(ecf.environment, ecf.tenantId, state.phase), payload });
}

/**
 * When a submission taken over from a process that died (work/holder.ts) may
 * run: a send it may have had in flight (the unclear mark) is asked about when
 * that process would have asked had it lived, its call timed out and the
 * transport ladder's first step waited, so the authority has had the time it
 * may still spend on a request whose sender left; anything else at once (null).
 */
export function resumeAfterHolderDied(item: WorkItem, now: Date, timeoutMs: number): Date | null {
  const state = item.payload as SubmitState | null;
  if (!state?.unclear) return null;
  // A mark without its time (written by an older version): from now, as a stop's hand-back does.
  const sentAt = state.sentAt ? Date.parse(state.sentAt) : now.getTime();
  return new Date(Math.max(now.getTime(), sentAt + timeoutMs + TRANSPORT_LADDER_MS[0]));
}

/**
 * The conversation (taxauth/conversation.ts) as the work item's payload
 * keeps it between two runs: `send` is prepared, or unclear when marked so;
 * `poll` holds the authority's trackId. The payload's shape is unchanged.
 */
export function conversationOf(state: SubmitState): Conversation {
  const counts = { failures: state.transportFailures ?? 0, busy: state.busyAnswers ?? 0 };
  if (state.phase === 'poll') return { ...answered(state.trackId!, state.polls ?? 0), ...counts };
  return { ...prepared(state.unclear === true), ...counts };
}
