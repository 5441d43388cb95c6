import { toRowInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { emit } from '../events/outbox.js';
import type { EventType } from '../events/catalogue.js';
import { ecfView, retryOf, taxauthOf as readTaxauth, taxauthToStore, type EcfRow } from '../ecf/views.js';
import { getSetting } from '../settings/settings.js';
import type { Environment } from '../schema-types.js';
import { afterCommit, inTransaction, type Tx } from '../store/database.js';
import { completeOrRollBack, renewLease, reschedule, rescheduleOrRollBack, type WorkItem } from '../work/queue.js';
import { DEFAULT_LEASE_MS, RECORDED, RECORDED_BUSY, type WorkOutcome } from '../work/run.js';
import type { TaxauthError } from '../taxauth/errors.js';
import type { Move } from '../taxauth/conversation.js';
import { recordAttempt } from './attempts.js';
import { appendJournal, ecfStatusData, type VerdictCodes } from '../journal/append.js';
import { logStateChange } from '../log/state-change.js';
import { BUSY_JITTER, BUSY_LADDER_MS, POLL_LADDER_MS, RESEND_DELAY_MS, STATUS_TEXT, TRANSIENT_REJECTION_CODES, TRANSPORT_LADDER_MS } from './rules.js';
import { restingState, sendingStateOf, submissionLane, type SendingState } from './sending.js';

/*
 * What submission writes of its conversation with the authority: the e-CF's
 * status and taxauth column, its attempt rows, its events and journal, and
 * the next step of its work item, each fact in one transaction. The moves
 * themselves are decided in submit.ts through taxauth/conversation.ts.
 */

/** The e-CF as submission reads it: with its tenant's id, from the tenant its key names. */
export type Row = EcfRow & { tenant_id: string; store_key: number };
export interface Verdict {
  readonly code: number;
  readonly status: string;
  readonly sequenceUsed: boolean | null;
  readonly messages: readonly { code: number; value: string }[];
  readonly trackId: string | null;
  readonly receivedAt: string | null;
}

interface Taxauth {
  trackId?: string;
  status?: string;
  statusCode?: number;
  sequenceUsed?: boolean;
  messages?: { code: number; value: string }[];
  submittedAt?: string;
  receivedAt?: string;
  processedAt?: string;
}

const EVENT_OF: Record<string, EventType> = {
  accepted: 'ecf.accepted',
  accepted_conditional: 'ecf.accepted_conditional',
  rejected: 'ecf.rejected',
  review: 'ecf.review',
  failed: 'ecf.failed',
};

/** Who is recording a change: for its log line once the change commits. */
export interface Recorder {
  readonly engine: Engine;
  readonly item: WorkItem;
}

/**
 * The state an e-CF is in for people reading the logs: `signed` with a
 * trackId is `submitted` (the contract keeps `signed` until the verdict).
 */
const shownState = (row: Row): string => (row.status === 'signed' && taxauthOf(row).trackId ? 'submitted' : row.status);

/**
 * Changes the e-CF and emits the event of the change with the e-CF view as it
 * now is; an event is a change of state, logged once the transaction commits.
 */
async function update(tx: Tx, now: Date, row: Row, changes: Partial<Row>, event: EventType | null, by: Recorder, verdict?: VerdictCodes): Promise<Row> {
  const next = { ...row, ...changes, updated_at: toRowInstant(now) };
  await tx
    .updateTable('ecf')
    .set({ status: next.status, taxauth: next.taxauth, retry: next.retry, updated_at: next.updated_at })
    .where('id', '=', row.id)
    .execute();
  const learned = taxauthOf(next).trackId;
  appendJournal(tx, now, {
    tenantKey: row.tenant_key,
    kind: 'ecf.status',
    ecfKey: row.store_key,
    data: ecfStatusData(shownState(next), learned !== taxauthOf(row).trackId ? learned : null, verdict),
  });
  if (event) {
    await emit(tx, now, row.tenant_id, event, ecfView(next));
    const trackId = taxauthOf(next).trackId;
    const reqId = sendingStateOf(by.item).requestId;
    logStateChange(by.engine.log, tx, {
      subject: 'ecf', tenantId: row.tenant_id, id: row.id, encf: row.encf, from: shownState(row), to: shownState(next), attempt: by.item.attempts,
      extra: { environment: row.environment, ...(trackId && { trackId }), ...(reqId && { reqId }) },
    });
  }
  return next;
}

/** The fields of every submission log line: whose, which e-NCF, which claim of the work. */
const submissionFields = (row: Row, item: WorkItem) => ({ tenantId: row.tenant_id, ecfId: row.id, encf: row.encf, attempt: item.attempts, environment: row.environment });

export const taxauthOf = (row: Row): Taxauth => readTaxauth(row.taxauth) ?? {};

/**
 * Written before every send and replaced when its result is recorded: if the
 * process dies in between, the next claim knows the send may have arrived.
 * It also extends the lease to outlast the calls of the send (a token, then
 * the send, each up to the timeout), so the item is not claimed again while
 * its send is in flight. False when the claim was lost: do not send.
 */
export async function markUnclear(engine: Engine, item: WorkItem, owner: string, state: SendingState, timeoutMs: number): Promise<boolean> {
  const leaseMs = Math.max(DEFAULT_LEASE_MS, SEND_CALLS * timeoutMs + LEASE_MARGIN_MS);
  const now = engine.clock.now();
  const unclear: SendingState = { ...state, phase: 'unclear', sentAt: now.toISOString() };
  return renewLease(engine.db, now, item, owner, leaseMs, unclear);
}

/** Calls a send may make in a row: seed and token when the token is renewed, then the send. */
const SEND_CALLS = 3;
const LEASE_MARGIN_MS = 60_000;

/** A verdict (code 1, 2 or 4) arrived: accepted, conditional, rejected, or an automatic resend. */
export async function recordVerdict(engine: Engine, item: WorkItem, owner: string, row: Row, v: Verdict): Promise<void> {
  const now = engine.clock.now();
  const max = await getSetting(engine, 'retry.max', row.tenant_id);
  await inTransaction(engine.db, async (tx) => {
    const retry = retryOf(row.retry);
    const requestId = sendingStateOf(item).requestId;
    const transient = v.code === 2 ? v.messages.find((m) => TRANSIENT_REJECTION_CODES.has(m.code)) : undefined;
    const count = retry?.count ?? 0;
    const base = {
      ecfId: row.id, trackId: v.trackId, statusCode: v.code, statusText: v.status || STATUS_TEXT[v.code],
      sequenceUsed: v.sequenceUsed, messages: v.messages,
    };
    const taxauth: Taxauth = {
      ...taxauthOf(row),
      ...(v.trackId && { trackId: v.trackId }),
      status: v.status || STATUS_TEXT[v.code],
      statusCode: v.code,
      ...(v.sequenceUsed !== null && { sequenceUsed: v.sequenceUsed }),
      messages: [...v.messages],
      ...(v.receivedAt && { receivedAt: v.receivedAt }),
      ...(row.submits_rfce === 1 && { submittedAt: now.toISOString() }),
      processedAt: now.toISOString(),
    };
    if (transient && count < max) {
      const nextAttemptAt = new Date(now.getTime() + RESEND_DELAY_MS);
      await recordAttempt(tx, now, { ...base, outcome: 'rejected', retryDecision: `auto:${transient.code}` });
      const r = JSON.stringify({ count: count + 1, max, nextAttemptAt: nextAttemptAt.toISOString() });
      await update(tx, now, row, { taxauth: taxauthToStore(taxauth), retry: r }, null, { engine, item }, { code: v.code, messages: v.messages });
      afterCommit(tx, () =>
        engine.log.info({ ...submissionFields(row, item), code: transient.code, resend: count + 1, of: max, nextAttemptAt: nextAttemptAt.toISOString() }, `e-CF ${row.encf}: transient rejection ${transient.code}, the same XML is sent again`),
      );
      const again: SendingState = { phase: 'prepared', ...(requestId && { requestId }) };
      await rescheduleOrRollBack(tx, now, item, owner, { dueAt: nextAttemptAt, payload: again, lane: submissionLane(row.environment as Environment, row.tenant_id, again) });
      return;
    }
    const outcome = v.code === 1 ? 'accepted' : v.code === 4 ? 'accepted_conditional' : 'rejected';
    await recordAttempt(tx, now, { ...base, outcome, retryDecision: transient ? 'exhausted' : null });
    const r = retry ? JSON.stringify({ ...retry, max, nextAttemptAt: null }) : row.retry;
    await update(tx, now, row, { status: outcome, taxauth: taxauthToStore(taxauth), retry: r }, EVENT_OF[outcome]!, { engine, item }, { code: v.code, messages: v.messages });
    await completeOrRollBack(tx, item, owner);
  });
}

/** The authority holds the e-CF under `trackId`: record it, and ask for its verdict after the poll ladder's first rung. */
export async function recordReceipt(by: Recorder, row: Row, state: SendingState, move: Move): Promise<WorkOutcome> {
  const { engine, item } = by;
  const now = engine.clock.now();
  const next = restingState(move.state, state);
  await inTransaction(engine.db, async (tx) => {
    const t = { ...taxauthOf(row), trackId: move.state.trackId, submittedAt: now.toISOString() };
    await update(tx, now, row, { taxauth: taxauthToStore(t) }, 'ecf.submitted', by);
    await rescheduleOrRollBack(tx, now, item, item.leaseOwner!, {
      dueAt: new Date(now.getTime() + POLL_LADDER_MS[0]),
      payload: next,
      lane: submissionLane(row.environment as Environment, row.tenant_id, next),
    });
  });
  return RECORDED;
}

/** Still processing: ask again on the poll ladder's next rung. */
export async function recordPending(by: Recorder, state: SendingState, move: Move): Promise<WorkOutcome> {
  const now = by.engine.clock.now();
  const dueAt = new Date(now.getTime() + POLL_LADDER_MS[move.state.polls]!);
  await reschedule(by.engine.db, now, by.item, by.item.leaseOwner!, { dueAt, payload: restingState(move.state, state) });
  return RECORDED;
}

/** The poll ladder ran out without a final verdict: review, with what the authority last said. */
export async function recordReview(by: Recorder, row: Row, trackId: string, result: { status: string; sequenceUsed: boolean | null; messages: readonly { code: number; value: string }[] }): Promise<WorkOutcome> {
  const now = by.engine.clock.now();
  await inTransaction(by.engine.db, async (tx) => {
    await recordAttempt(tx, now, {
      ecfId: row.id, outcome: 'review', trackId, statusCode: null, statusText: result.status,
      sequenceUsed: result.sequenceUsed, messages: result.messages,
    });
    const t = { ...taxauthOf(row), status: result.status, messages: [...result.messages] };
    await update(tx, now, row, { status: 'review', taxauth: taxauthToStore(t) }, 'ecf.review', by, { messages: result.messages });
    await completeOrRollBack(tx, by.item, by.item.leaseOwner!);
  });
  return RECORDED;
}

/**
 * A call failed and the conversation said what follows: a wait on the busy
 * or transport ladder (`doubt`: ask before sending again), or giving up
 * (failed, with the error as its message).
 */
export async function recordFailure(by: Recorder, row: Row, state: SendingState, error: TaxauthError, move: Move): Promise<WorkOutcome> {
  const { engine, item } = by;
  const { command } = move;
  const next = restingState(move.state, state);
  const owner = item.leaseOwner!;
  const now = engine.clock.now();
  if (command.do === 'wait' && command.ladder === 'busy') {
    // The authority answered, and said "not now": nothing was received, so no unclear mark, and
    // no step on the transport ladder that ends in failed. The pump halves its concurrency.
    const busy = command.rung + 1;
    const wait = BUSY_LADDER_MS[command.rung]!;
    engine.log.warn({ ...submissionFields(row, item), phase: state.phase, busy, err: error.message }, `e-CF ${row.encf}: the authority is busy (${error.status ?? error.kind}); trying later`);
    await reschedule(engine.db, now, item, owner, {
      dueAt: new Date(now.getTime() + wait + Math.floor(Math.random() * wait * BUSY_JITTER)),
      error: error.message,
      payload: next,
    });
    return RECORDED_BUSY;
  }
  const message = { code: error.status ?? 0, value: error.message };
  if (command.do === 'wait') {
    const failures = command.rung + 1;
    const unclear = next.phase === 'unclear';
    engine.log.warn(
      { ...submissionFields(row, item), phase: state.phase, transportFailures: failures, unclear, err: error.message },
      `e-CF ${row.encf}: the authority could not be reached (${error.kind}); trying again${unclear ? ', asking first what it received' : ''}`,
    );
    await reschedule(engine.db, now, item, owner, {
      dueAt: new Date(now.getTime() + TRANSPORT_LADDER_MS[command.rung]!),
      error: error.message,
      payload: next,
    });
    return RECORDED;
  }
  await inTransaction(engine.db, async (tx) => {
    await recordAttempt(tx, now, { ecfId: row.id, outcome: 'failed', trackId: move.state.trackId ?? null, messages: [message] });
    const t = { ...taxauthOf(row), messages: [message] };
    await update(tx, now, row, { status: 'failed', taxauth: taxauthToStore(t) }, 'ecf.failed', by, { messages: [message] });
    await completeOrRollBack(tx, item, owner);
  });
  return RECORDED;
}
