import type { Engine } from '../engine-types.js';
import { selectEcfRows } from '../ecf/views.js';
import type { Environment } from '../schema-types.js';
import { readEcfXml, readRfceXml } from '../store/documents/index.js';
import type { WorkItem } from '../work/queue.js';
import { RECORDED, type WorkOutcome } from '../work/run.js';
import type { TaxauthClient } from '../taxauth/client.js';
import { TaxauthError } from '../taxauth/errors.js';
import { begin, eventOfError, step, type Conversation, type Move } from '../taxauth/conversation.js';
import { noteTransportFailure, noteTransportSuccess } from './contingency.js';
import { markUnclear, recordFailure, recordPending, recordReceipt, recordReview, recordVerdict, taxauthOf, type Recorder, type Row } from './recorder.js';
import { CONVERSATION_LIMITS, FINAL_STATES } from './rules.js';
import { conversationOf, sendingStateOf, type SendingState } from './sending.js';

export { queueSubmission, resumeAfterHolderDied, submissionLane, SUBMIT_KIND, type SendingState } from './sending.js';

/*
 * The work handler of `ecf.submit`: one claim makes one move of the e-CF's
 * conversation with the authority (taxauth/conversation.ts), then records
 * it (recorder.ts) and leaves the next move to the next claim. Three cycles,
 * each read top to bottom:
 *
 *   rfce   type 32 under DOP 250,000: [ask its status if unclear] → send → verdict;
 *   send   [ask its trackIds if unclear] → send the signed bytes → trackId;
 *   poll   ask the trackId's verdict → wait on the poll ladder, or record it.
 *
 * Every network call is outside any transaction. A failed call is read as a
 * conversation event (eventOfError), and the conversation says whether to
 * wait (busy or transport ladder) or give up.
 */

/** One claim of one e-CF's submission: what the cycles need to talk and to record. */
interface Submission {
  readonly by: Recorder;
  readonly row: Row;
  /** The conversation as it rested before this claim (sending.ts). */
  readonly state: SendingState;
  readonly client: TaxauthClient;
  /** The tenant's token from the engine's port (`engine.taxauth.withToken`). */
  readonly withToken: <T>(fn: (token: string) => Promise<T>) => Promise<T>;
}

export async function submitHandler(engine: Engine, item: WorkItem): Promise<WorkOutcome> {
  const row: Row | undefined = await selectEcfRows(engine.db)
    .select((eb) => eb.selectFrom('tenants').select('tenants.id').whereRef('tenants.store_key', '=', 'ecf.tenant_key').as('tenant_id'))
    .$narrowType<{ tenant_id: string }>()
    .where('ecf.id', '=', item.ref!)
    .executeTakeFirst();
  if (!row || FINAL_STATES.has(row.status)) return { done: true };
  const state = sendingStateOf(item);
  const environment = row.environment as Environment;
  const s: Submission = {
    by: { engine, item },
    row,
    state,
    client: await engine.taxauth.client(environment),
    withToken: (fn) => engine.taxauth.withToken(row.tenant_id, environment, fn),
  };
  const move = begin(conversationOf(state, taxauthOf(row).trackId));
  try {
    if (row.submits_rfce === 1) return await rfceCycle(s, move);
    return move.command.do === 'poll' ? await pollCycle(s, move) : await sendCycle(s, move);
  } catch (e) {
    if (!(e instanceof TaxauthError)) throw e;
    return failed(s, move.state, e);
  }
}

/**
 * The RFCE's verdict is synchronous and it has no trackId: after a send whose
 * answer may have been lost (or a process that died mid-send), its e-NCF's
 * status is asked before sending again. Only an acceptance settles it: a
 * rejection seen there carries no messages, and a transient one must be resent
 * (if it consumed the e-NCF, the resend's own answer says so).
 */
async function rfceCycle(s: Submission, first: Move): Promise<WorkOutcome> {
  const { row, client } = s;
  let move = first;
  if (move.command.do === 'ask') {
    const known = await s.withToken((t) => client.status(t, { rnc: row.issuer_rnc, encf: row.encf, securityCode: row.security_code }));
    const accepted = known.code === 1 || known.code === 4;
    move = step(move.state, accepted ? { type: 'verdict' } : { type: 'not-received' }, CONVERSATION_LIMITS);
    if (move.command.do === 'record-verdict') {
      await noteTransportSuccess(s.by.engine);
      await recordVerdict(s.by.engine, s.by.item, s.by.item.leaseOwner!, row, { code: known.code, status: known.status, sequenceUsed: true, messages: [], trackId: null, receivedAt: null });
      return RECORDED;
    }
  }
  if (!(await markUnclear(s.by.engine, s.by.item, s.by.item.leaseOwner!, s.state, client.timeoutMs))) return RECORDED;
  const rfce = await signedBytes(s, 'rfce_xml');
  const v = await s.withToken((t) => client.sendRfce(t, { rnc: row.issuer_rnc, encf: row.encf, xml: rfce }));
  await noteTransportSuccess(s.by.engine);
  await recordVerdict(s.by.engine, s.by.item, s.by.item.leaseOwner!, row, { ...v, trackId: null, receivedAt: null });
  return RECORDED;
}

/**
 * A send whose answer never came back, or one made by a process that died
 * before recording it (the unclear mark survives it), may have reached the
 * authority: its trackIds are asked for before sending again, and one found
 * that way is followed with status queries instead of a second send.
 */
async function sendCycle(s: Submission, first: Move): Promise<WorkOutcome> {
  const { row, client } = s;
  let move = first;
  if (move.command.do === 'ask') {
    const trackId = await unsettledTrackId(s);
    move = step(move.state, trackId ? { type: 'received', trackId } : { type: 'not-received' }, CONVERSATION_LIMITS);
  }
  if (move.command.do === 'send') {
    if (!(await markUnclear(s.by.engine, s.by.item, s.by.item.leaseOwner!, s.state, client.timeoutMs))) return RECORDED;
    const xml = await signedBytes(s, 'xml');
    const { trackId } = await s.withToken((t) => client.sendEcf(t, { rnc: row.issuer_rnc, encf: row.encf, xml }));
    move = step(move.state, { type: 'receipt', trackId }, CONVERSATION_LIMITS);
  }
  await noteTransportSuccess(s.by.engine);
  if (move.command.do !== 'follow') throw new Error(`submission of ${row.encf}: the conversation said ${move.command.do} after a send`);
  return recordReceipt(s.by, row, s.state, move);
}

/** The verdict of the trackId: code 3 (processing) or 0 (not found yet) waits on the poll ladder; past it, review. */
async function pollCycle(s: Submission, first: Move): Promise<WorkOutcome> {
  const trackId = first.state.trackId!;
  const result = await s.withToken((t) => s.client.result(t, trackId));
  await noteTransportSuccess(s.by.engine);
  const pending = result.code === 3 || result.code === 0;
  const move = step(first.state, pending ? { type: 'pending' } : { type: 'verdict' }, CONVERSATION_LIMITS);
  if (move.command.do === 'wait') return recordPending(s.by, s.state, move);
  if (move.command.do === 'give-up') return recordReview(s.by, s.row, trackId, result);
  await recordVerdict(s.by.engine, s.by.item, s.by.item.leaseOwner!, s.row, { ...result, trackId });
  return RECORDED;
}

/**
 * A call failed: the conversation reads the error (a 401 reaching here was
 * already renewed once by the port, so it is not renewed again) and says
 * whether to wait on a ladder or give up.
 */
async function failed(s: Submission, at: Conversation, error: TaxauthError): Promise<WorkOutcome> {
  const move = step({ ...at, renewed: true }, eventOfError(error), CONVERSATION_LIMITS);
  const busyWait = move.command.do === 'wait' && move.command.ladder === 'busy';
  if (!busyWait && error.transient) await noteTransportFailure(s.by.engine);
  return recordFailure(s.by, s.row, s.state, error, move);
}

/**
 * The newest trackId the authority has for the e-NCF whose verdict is not
 * recorded yet: trackIds that got a verdict (an earlier cycle before an
 * automatic resend) are settled; one left in review is still worth asking about.
 */
async function unsettledTrackId(s: Submission): Promise<string | null> {
  const seen = await s.by.engine.db
    .selectFrom('ecf_attempts')
    .select('track_id')
    .where('ecf_key', '=', s.row.store_key)
    .where('status_code', 'in', [1, 2, 4])
    .execute();
  const recorded = new Set(seen.map((a) => a.track_id));
  const known = (await s.withToken((t) => s.client.trackIds(t, s.row.issuer_rnc, s.row.encf))).filter((k) => !recorded.has(k.trackId));
  return known.length ? known[known.length - 1]!.trackId : null;
}

/**
 * The signed bytes (kilobytes), read only for a send, never for a status
 * query; decompressed and checked against the kept SHA-256: a damaged
 * document is never sent.
 */
async function signedBytes(s: Submission, column: 'xml' | 'rfce_xml'): Promise<Buffer> {
  const { engine } = s.by;
  const doc = await engine.db.selectFrom('ecf_documents').selectAll().where('ecf_key', '=', s.row.store_key).executeTakeFirstOrThrow();
  const stored = { id: s.row.id, encf: s.row.encf, document_hash: s.row.document_hash, ...doc };
  return column === 'xml' ? readEcfXml(engine.documents, engine.db, stored) : (await readRfceXml(engine.documents, engine.db, stored))!;
}
