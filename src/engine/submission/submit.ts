import { toRowInstant } from '../clock.js';
import type { Engine } from '../engine.js';
import { emit } from '../events/outbox.js';
import type { EventType } from '../events/catalogue.js';
import { ecfView, selectEcfRows, taxauthOf as readTaxauth, taxauthToStore, type EcfRow } from '../ecf/views.js';
import { getSetting } from '../settings/settings.js';
import type { Environment } from '../schema-types.js';
import { afterCommit, inTransaction, type Tx } from '../store/database.js';
import { readEcfXml, readRfceXml } from '../store/documents/index.js';
import { completeOrRollBack, enqueue, renewLease, reschedule, rescheduleOrRollBack, type WorkItem } from '../work/queue.js';
import { laneOf, taxauthGroup } from '../work/lanes.js';
import { DEFAULT_LEASE_MS, RECORDED, RECORDED_BUSY, type WorkOutcome } from '../work/run.js';
import { TaxauthError } from '../taxauth/errors.js';
import { recordAttempt } from './attempts.js';
import { appendJournal, ecfStatusData, type VerdictCodes } from '../journal/append.js';
import { logStateChange } from '../log/state-change.js';
import { currentRequestId } from '../log/request-id.js';
import { noteTransportFailure, noteTransportSuccess } from './contingency.js';
import { BUSY_JITTER, BUSY_LADDER_MS, FINAL_STATES, isBusy, POLL_LADDER_MS, RESEND_DELAY_MS, STATUS_TEXT, TRANSIENT_REJECTION_CODES, TRANSPORT_LADDER_MS } from './rules.js';

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
const carried = (state: SubmitState | null): Pick<SubmitState, 'requestId'> => (state?.requestId ? { requestId: state.requestId } : {});

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

/** The e-CF as submission reads it: with its tenant's id, from the tenant its key names. */
type Row = EcfRow & { tenant_id: string; store_key: number };
interface Verdict {
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
interface Recorder {
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
    const reqId = (by.item.payload as SubmitState | null)?.requestId;
    logStateChange(by.engine.log, tx, {
      subject: 'ecf', tenantId: row.tenant_id, id: row.id, encf: row.encf, from: shownState(row), to: shownState(next), attempt: by.item.attempts,
      extra: { environment: row.environment, ...(trackId && { trackId }), ...(reqId && { reqId }) },
    });
  }
  return next;
}

/** The fields of every submission log line: whose, which e-NCF, which claim of the work. */
const submissionFields = (row: Row, item: WorkItem) => ({ tenantId: row.tenant_id, ecfId: row.id, encf: row.encf, attempt: item.attempts, environment: row.environment });

const taxauthOf = (row: Row): Taxauth => readTaxauth(row.taxauth) ?? {};

/**
 * The work handler of `ecf.submit`: sends the stored signed bytes (the RFCE
 * for type 32 under DOP 250,000), follows the status query ladder, resends the
 * same XML after transient rejections up to `retry.max`, and after a send
 * whose answer was lost asks the authority what it has before sending again.
 * Every network call is outside any transaction; each result is recorded, with
 * its attempt row, events and the next step of the work item, in one.
 */
export async function submitHandler(engine: Engine, item: WorkItem): Promise<WorkOutcome> {
  const row: Row | undefined = await selectEcfRows(engine.db)
    .select((eb) => eb.selectFrom('tenants').select('tenants.id').whereRef('tenants.store_key', '=', 'ecf.tenant_key').as('tenant_id'))
    .$narrowType<{ tenant_id: string }>()
    .where('ecf.id', '=', item.ref!)
    .executeTakeFirst();
  if (!row || FINAL_STATES.has(row.status)) return { done: true };
  // The signed bytes (kilobytes) are read only for a send, never for a status query.
  // Decompressed and checked against the kept SHA-256: a damaged document is never sent.
  const signedBytes = async (column: 'xml' | 'rfce_xml'): Promise<Buffer> => {
    const doc = await engine.db.selectFrom('ecf_documents').selectAll().where('ecf_key', '=', row.store_key).executeTakeFirstOrThrow();
    const stored = { id: row.id, encf: row.encf, document_hash: row.document_hash, ...doc };
    return column === 'xml' ? readEcfXml(engine.documents, engine.db, stored) : (await readRfceXml(engine.documents, engine.db, stored))!;
  };
  const tenant = { rnc: row.issuer_rnc };
  const state = (item.payload ?? { phase: 'send' }) as SubmitState;
  const environment = row.environment as Environment;
  const client = await engine.taxauth.client(environment);
  const withToken = <T>(fn: (token: string) => Promise<T>) => engine.taxauth.withToken(row.tenant_id, environment, fn);
  const owner = item.leaseOwner!;

  try {
    if (row.submits_rfce === 1) {
      // The RFCE's verdict is synchronous and it has no trackId: after a send whose answer may have been
      // lost (or a process that died mid-send), ask the authority's status of the e-NCF before sending again.
      if (state.unclear) {
        const known = await withToken((t) => client.status(t, { rnc: tenant.rnc, encf: row.encf, securityCode: row.security_code }));
        // Only an acceptance settles it: a rejection seen here carries no messages, and a transient one
        // must be resent (if it consumed the e-NCF, the resend's own answer says so).
        if (known.code === 1 || known.code === 4) {
          await noteTransportSuccess(engine);
          await finish(engine, item, owner, row, { code: known.code, status: known.status, sequenceUsed: true, messages: [], trackId: null, receivedAt: null });
          return RECORDED;
        }
      }
      if (!(await markUnclear(engine, item, owner, state, client.timeoutMs))) return RECORDED;
      const rfce = await signedBytes('rfce_xml');
      const v = await withToken((t) => client.sendRfce(t, { rnc: tenant.rnc, encf: row.encf, xml: rfce }));
      await noteTransportSuccess(engine);
      await finish(engine, item, owner, row, { ...v, trackId: null, receivedAt: null });
      return RECORDED;
    }

    if (state.phase === 'send') {
      let trackId: string | null = null;
      // A send whose answer never came back, or one made by a process that died before recording
      // it (the mark below survives it), may have reached the authority: ask what it has before
      // sending again, ignoring
      // trackIds whose verdict is already recorded (an earlier cycle before an automatic resend).
      // A trackId found this way is followed with status queries instead of a second send.
      if (state.unclear) {
        // Only trackIds that got a verdict are settled; one left in review is still worth asking about.
        const seen = await engine.db
          .selectFrom('ecf_attempts')
          .select('track_id')
          .where('ecf_key', '=', row.store_key)
          .where('status_code', 'in', [1, 2, 4])
          .execute();
        const recorded = new Set(seen.map((a) => a.track_id));
        const known = (await withToken((t) => client.trackIds(t, tenant.rnc, row.encf))).filter((k) => !recorded.has(k.trackId));
        trackId = known.length ? known[known.length - 1]!.trackId : null;
      }
      if (trackId === null) {
        if (!(await markUnclear(engine, item, owner, state, client.timeoutMs))) return RECORDED;
        const xml = await signedBytes('xml');
        trackId = (await withToken((t) => client.sendEcf(t, { rnc: tenant.rnc, encf: row.encf, xml }))).trackId;
      }
      await noteTransportSuccess(engine);
      const now = engine.clock.now();
      await inTransaction(engine.db, async (tx) => {
        const t = { ...taxauthOf(row), trackId, submittedAt: now.toISOString() };
        await update(tx, now, row, { taxauth: taxauthToStore(t) }, 'ecf.submitted', { engine, item });
        await rescheduleOrRollBack(tx, now, item, owner, {
          dueAt: new Date(now.getTime() + POLL_LADDER_MS[0]),
          payload: { phase: 'poll', trackId, polls: 0, ...carried(state) },
          lane: submissionLane(environment, row.tenant_id, 'poll'),
        });
      });
      return RECORDED;
    }

    const result = await withToken((t) => client.result(t, state.trackId!));
    await noteTransportSuccess(engine);
    if (result.code === 3 || result.code === 0) {
      const polls = (state.polls ?? 0) + 1;
      const now = engine.clock.now();
      if (polls < POLL_LADDER_MS.length) {
        await reschedule(engine.db, now, item, owner, { dueAt: new Date(now.getTime() + POLL_LADDER_MS[polls]!), payload: { ...state, polls, busyAnswers: 0 } });
        return RECORDED;
      }
      await inTransaction(engine.db, async (tx) => {
        await recordAttempt(tx, now, {
          ecfId: row.id, outcome: 'review', trackId: state.trackId, statusCode: null, statusText: result.status,
          sequenceUsed: result.sequenceUsed, messages: result.messages,
        });
        const t = { ...taxauthOf(row), status: result.status, messages: result.messages };
        await update(tx, now, row, { status: 'review', taxauth: taxauthToStore(t) }, 'ecf.review', { engine, item }, { messages: result.messages });
        await completeOrRollBack(tx, item, owner);
      });
      return RECORDED;
    }
    await finish(engine, item, owner, row, { ...result, trackId: state.trackId! });
    return RECORDED;
  } catch (e) {
    if (!(e instanceof TaxauthError)) throw e;
    return transportFailure(engine, item, owner, row, state, e);
  }
}

/**
 * Written before every send and replaced when its result is recorded: if the
 * process dies in between, the next claim knows the send may have arrived.
 * It also extends the lease to outlast the calls of the send (a token, then
 * the send, each up to the timeout), so the item is not claimed again while
 * its send is in flight. False when the claim was lost: do not send.
 */
async function markUnclear(engine: Engine, item: WorkItem, owner: string, state: SubmitState, timeoutMs: number): Promise<boolean> {
  const leaseMs = Math.max(DEFAULT_LEASE_MS, SEND_CALLS * timeoutMs + LEASE_MARGIN_MS);
  const now = engine.clock.now();
  return renewLease(engine.db, now, item, owner, leaseMs, { ...state, unclear: true, sentAt: now.toISOString() });
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

/** Calls a send may make in a row: seed and token when the token is renewed, then the send. */
const SEND_CALLS = 3;
const LEASE_MARGIN_MS = 60_000;

/** A verdict (code 1, 2 or 4) arrived: accepted, conditional, rejected, or an automatic resend. */
async function finish(engine: Engine, item: WorkItem, owner: string, row: Row, v: Verdict): Promise<void> {
  const now = engine.clock.now();
  const max = await getSetting<number>(engine, 'retry.max', row.tenant_id);
  await inTransaction(engine.db, async (tx) => {
    const retry = row.retry ? (JSON.parse(row.retry) as { count: number; max: number; nextAttemptAt: string | null }) : null;
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
      await rescheduleOrRollBack(tx, now, item, owner, { dueAt: nextAttemptAt, payload: { phase: 'send', ...carried(item.payload as SubmitState | null) }, lane: submissionLane(row.environment as Environment, row.tenant_id, 'send') });
      return;
    }
    const outcome = v.code === 1 ? 'accepted' : v.code === 4 ? 'accepted_conditional' : 'rejected';
    await recordAttempt(tx, now, { ...base, outcome, retryDecision: transient ? 'exhausted' : null });
    const r = retry ? JSON.stringify({ ...retry, max, nextAttemptAt: null }) : row.retry;
    await update(tx, now, row, { status: outcome, taxauth: taxauthToStore(taxauth), retry: r }, EVENT_OF[outcome]!, { engine, item }, { code: v.code, messages: v.messages });
    await completeOrRollBack(tx, item, owner);
  });
}

/** The authority could not be reached or did not answer: wait on the ladder, then fail. */
async function transportFailure(engine: Engine, item: WorkItem, owner: string, row: Row, state: SubmitState, error: TaxauthError): Promise<WorkOutcome> {
  const now = engine.clock.now();
  if (isBusy(error) && (state.busyAnswers ?? 0) < BUSY_LADDER_MS.length) {
    // The authority answered, and said "not now": nothing was received, so no unclear mark, and
    // no step on the transport ladder that ends in failed. The pump halves its concurrency.
    const busy = (state.busyAnswers ?? 0) + 1;
    const wait = BUSY_LADDER_MS[busy - 1]!;
    engine.log.warn({ ...submissionFields(row, item), phase: state.phase, busy, err: error.message }, `e-CF ${row.encf}: the authority is busy (${error.status ?? error.kind}); trying later`);
    await reschedule(engine.db, now, item, owner, {
      dueAt: new Date(now.getTime() + wait + Math.floor(Math.random() * wait * BUSY_JITTER)),
      error: error.message,
      payload: { ...state, busyAnswers: busy },
    });
    return RECORDED_BUSY;
  }
  const failures = (state.transportFailures ?? 0) + 1;
  if (error.transient) await noteTransportFailure(engine);
  const message = { code: error.status ?? 0, value: error.message };
  if (error.transient && failures <= TRANSPORT_LADDER_MS.length) {
    // A send that timed out or lost its connection may have arrived: ask before sending again.
    const unclear = state.phase === 'send' && (state.unclear || error.kind === 'timeout' || error.kind === 'network');
    engine.log.warn(
      { ...submissionFields(row, item), phase: state.phase, transportFailures: failures, unclear, err: error.message },
      `e-CF ${row.encf}: the authority could not be reached (${error.kind}); trying again${unclear ? ', asking first what it received' : ''}`,
    );
    await reschedule(engine.db, now, item, owner, {
      dueAt: new Date(now.getTime() + TRANSPORT_LADDER_MS[failures - 1]!),
      error: error.message,
      payload: { ...state, transportFailures: failures, ...(state.phase === 'send' && { unclear }) },
    });
    return RECORDED;
  }
  await inTransaction(engine.db, async (tx) => {
    await recordAttempt(tx, now, { ecfId: row.id, outcome: 'failed', trackId: state.trackId ?? null, messages: [message] });
    const t = { ...taxauthOf(row), messages: [message] };
    await update(tx, now, row, { status: 'failed', taxauth: taxauthToStore(t) }, 'ecf.failed', { engine, item }, { messages: [message] });
    await completeOrRollBack(tx, item, owner);
  });
  return RECORDED;
}
