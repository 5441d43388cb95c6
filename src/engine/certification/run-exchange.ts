import { FINAL_PHASES, answered, begin, eventOfError, prepared, step, type Command, type Conversation, type ConversationEvent, type Move } from '../taxauth/conversation.js';
import { TaxauthError } from '../taxauth/errors.js';
import type { TaxauthMessage } from '../taxauth/types.js';
import { caseXml, type CaseRow } from './cases.js';
import type { CaseState } from './plan.js';
import { BUSY_WAITS_MS, CONVERSATION_LIMITS, TRANSPORT_WAITS_MS } from './rules.js';
import { moveCase, recordVerdict, verdictState } from './run-recorder.js';
import { caseReport, type RunContext } from './run-types.js';

/*
 * One case's exchange with the authority, one call per turn: the case's
 * conversation (taxauth/conversation.ts) says which call its phase calls
 * for, the call is made outside any transaction, and what came back (an
 * answer, or a failure as eventOfError reads it) is fed back with `step`
 * and recorded (run-recorder.ts). A case's stored state stands for its
 * phase:
 *
 *   prepared   prepared (nothing sent, or the authority said it has nothing);
 *   sending    unclear: a send went out and nobody heard back (a run that died,
 *              an answer lost); asked about before anything is sent again:
 *              an e-CF by consultatrackids, ignoring earlier generations'
 *              trackIds; an RFCE by its status; an approval has no query,
 *              so it reads as "not received" and is sent again;
 *   sent       answered(trackId): its verdict is polled.
 */

type Call = 'send' | 'ask' | 'poll';
type GiveUp = Extract<Command, { do: 'give-up' }>['why'];

/** What one turn of a case's exchange left. */
export interface Turn {
  readonly talk: Conversation;
  /** The call did not go through: the phase's sends stop here. */
  readonly failed: boolean;
  /** Wait this long before the next call; 0 when the run's own pacing is the wait. */
  readonly waitMs: number;
  /** The conversation gave up: 'unreachable' ends the run as 'waiting'; any other is the error's to tell. */
  readonly gaveUp?: { readonly why: GiveUp; readonly error?: TaxauthError };
}

/** The case's stored state a conversation stands for (the table above, read the other way). */
function storedStateOf(talk: Conversation): CaseState {
  const at = talk.phase === 'busy' || talk.phase === 'expired-token' ? talk.resume : talk.phase;
  const final = FINAL_PHASES.has(talk.phase);
  if (at === 'answered' || (final && talk.trackId !== undefined)) return 'sent';
  if (at === 'unclear' || at === 'asking' || (final && talk.doubt)) return 'sending';
  return 'prepared';
}

/** The case's conversation: the one this run holds, while it agrees with the store; else the one its stored state stands for. */
export function conversationOfCase(c: CaseRow, known: Conversation | undefined): Conversation {
  if (known && !FINAL_PHASES.has(known.phase) && storedStateOf(known) === c.state) return known;
  if (c.state === 'sending') return prepared(true);
  if (c.state === 'sent' && c.trackId) return answered(c.trackId);
  return prepared();
}

/** One turn: the call the case's conversation calls for, and what it answered, recorded. */
export async function exchange(ctx: RunContext, c: CaseRow, talk: Conversation): Promise<Turn> {
  const first = begin(talk);
  const call = first.command.do;
  if (call !== 'send' && call !== 'ask' && call !== 'poll') return { talk: first.state, failed: false, waitMs: 0 };
  try {
    if (call === 'send') return await send(ctx, c, first.state);
    if (call === 'ask') return await ask(ctx, c, first.state);
    return await poll(ctx, c, first.state);
  } catch (e) {
    if (!(e instanceof TaxauthError)) throw e;
    return failed(ctx, c, call, first.state, e);
  }
}

/**
 * Sends the case's signed bytes, marked `sending` first so that a run dying
 * on the wire leaves it unclear. An e-CF is answered with a trackId; an RFCE
 * and an approval with their verdict at once.
 */
async function send(ctx: RunContext, c: CaseRow, at: Conversation): Promise<Turn> {
  const xml = await caseXml(ctx.engine, c);
  // Another run moved it first: nothing to do here.
  if (!(await moveCase(ctx, c, 'prepared', 'sending', { sent: true }))) return { talk: at, failed: false, waitMs: 0 };
  const sending: CaseRow = { ...c, state: 'sending' };
  const upload = { rnc: c.kind === 'acecf' ? (c.cells['RNCEmisor'] ?? ctx.rnc) : ctx.rnc, encf: c.encf, xml };
  let move: Move;
  if (c.kind === 'rfce') {
    const v = await ctx.withToken((t) => ctx.client.sendRfce(t, upload));
    move = await verdict(ctx, sending, at, v.code, v.messages);
  } else if (c.kind === 'acecf') {
    const v = await ctx.withToken((t) => ctx.client.sendCommercialApproval(t, upload));
    move = await verdict(ctx, sending, at, v.code === 1 ? 1 : 2, v.messages.map((value) => ({ code: 0, value })));
  } else {
    const { trackId } = await ctx.withToken((t) => ctx.client.sendEcf(t, upload));
    move = step(at, { type: 'receipt', trackId }, CONVERSATION_LIMITS);
    await moveCase(ctx, sending, 'sending', 'sent', { track_id: trackId });
  }
  ctx.emit({ type: 'sent', case: caseReport({ ...c, state: 'sent' }) });
  return turnOf(move, 'send');
}

/**
 * A case left `sending`: did the authority get it? Only an RFCE's
 * acceptance settles it by its status (a rejection seen there carries no
 * messages); one not received goes back to `prepared` and is sent again in
 * the plan's order.
 */
async function ask(ctx: RunContext, c: CaseRow, at: Conversation): Promise<Turn> {
  let event: ConversationEvent = { type: 'not-received' };
  let code = 0;
  if (c.kind === 'rfce') {
    const s = await ctx.withToken((t) => ctx.client.status(t, { rnc: ctx.rnc, encf: c.encf, securityCode: c.securityCode }));
    if (s.code === 1 || s.code === 4) [event, code] = [{ type: 'verdict' }, s.code];
  } else if (c.kind !== 'acecf') {
    const trackId = await unsettledTrackId(ctx, c);
    if (trackId) event = { type: 'received', trackId };
  }
  const move = step(at, event, CONVERSATION_LIMITS);
  if (move.command.do === 'record-verdict') await recordVerdict(ctx, c, 'sending', code, []);
  else if (move.command.do === 'follow') await moveCase(ctx, c, 'sending', 'sent', { track_id: move.command.trackId });
  else if (move.command.do === 'send') await moveCase(ctx, c, 'sending', 'prepared');
  return turnOf(move, 'ask');
}

/** The verdict of a sent case's trackId; a pending one is asked again at the run's next poll. */
async function poll(ctx: RunContext, c: CaseRow, at: Conversation): Promise<Turn> {
  const v = await ctx.withToken((t) => ctx.client.result(t, at.trackId ?? c.trackId!));
  return turnOf(await verdict(ctx, c, at, v.code, v.messages), 'poll');
}

/**
 * An answer carrying a verdict code, as the conversation reads it: final,
 * "send it again" (RESEND_CODES: the case goes back to `prepared`), or
 * pending. A synchronous send answered without a verdict leaves the case
 * `sending`: it is asked about, as a send whose answer was lost.
 */
async function verdict(ctx: RunContext, c: CaseRow, at: Conversation, code: number, messages: readonly TaxauthMessage[]): Promise<Move> {
  const state = verdictState(code, messages);
  const event: ConversationEvent = state === null ? (c.state === 'sent' ? { type: 'pending' } : { type: 'lost' }) : state === 'prepared' ? { type: 'resend' } : { type: 'verdict' };
  const move = step(at, event, CONVERSATION_LIMITS);
  if (state !== null) await recordVerdict(ctx, c, c.state, code, messages);
  return move;
}

/**
 * A call failed: the conversation reads the error (a 401 reaching here was
 * already renewed once by the port, so it is not renewed again) and the
 * case's stored state follows its phase: a send nothing reached goes back
 * to `prepared`, one that may have arrived stays `sending`.
 */
async function failed(ctx: RunContext, c: CaseRow, call: Call, at: Conversation, error: TaxauthError): Promise<Turn> {
  const move = step({ ...at, renewed: true }, eventOfError(error), CONVERSATION_LIMITS);
  if (move.state.phase === 'refused' && call === 'send') {
    // A definite refusal of the document itself: the authority's words are the rejection.
    await recordVerdict(ctx, { ...c, state: 'sending' }, 'sending', 2, [{ code: error.status ?? 0, value: error.message }]);
    return { talk: move.state, failed: false, waitMs: 0 };
  }
  const from: CaseState = call === 'poll' ? 'sent' : 'sending';
  // A send answered with something nobody can read may have arrived all the same: it stays `sending`, to be asked about.
  const unreadableSend = call === 'send' && eventOfError(error).type === 'broken';
  const stored = unreadableSend ? 'sending' : storedStateOf(move.state);
  if (stored !== from) await moveCase(ctx, { ...c, state: from }, from, stored);
  const turn = turnOf(move, call);
  return turn.gaveUp ? { ...turn, gaveUp: { ...turn.gaveUp, error } } : turn;
}

/** The run's part of a move: whether to stop the phase, how long to wait, whether the conversation gave up. */
function turnOf(move: Move, call: Call): Turn {
  const command = move.command;
  if (command.do === 'give-up') return { talk: move.state, failed: true, waitMs: 0, gaveUp: { why: command.why } };
  if (command.do !== 'wait') return { talk: move.state, failed: false, waitMs: 0 };
  const rungOf = (ladder: readonly number[]) => ladder[Math.min(command.rung, ladder.length - 1)]!;
  switch (command.ladder) {
    case 'busy':
      return { talk: move.state, failed: true, waitMs: rungOf(BUSY_WAITS_MS) };
    case 'transport':
      // A send that may have arrived waits settleAfterMs from its send (the run's settling wait, said aloud), then is asked about.
      return { talk: move.state, failed: true, waitMs: call === 'send' && move.state.phase === 'unclear' ? 0 : rungOf(TRANSPORT_WAITS_MS) };
    case 'poll':
    case 'resend':
      // Polls are paced across the set by the run (POLL_INTERVALS_MS); a transient rejection is sent again at once.
      return { talk: move.state, failed: false, waitMs: 0 };
  }
}

/** The newest trackId the authority has for the case's e-NCF that no earlier generation of the set recorded. */
async function unsettledTrackId(ctx: RunContext, c: CaseRow): Promise<string | null> {
  const earlier = await ctx.engine.db
    .selectFrom('certification_cases')
    .select('track_id')
    .where('tenant_id', '=', ctx.tenantId)
    .where('encf', '=', c.encf)
    .where('generation', '<', c.generation)
    .where('track_id', 'is not', null)
    .execute();
  const old = new Set(earlier.map((r) => r.track_id));
  const entries = (await ctx.withToken((t) => ctx.client.trackIds(t, ctx.rnc, c.encf))).filter((e) => !old.has(e.trackId));
  return entries.at(-1)?.trackId ?? null;
}
