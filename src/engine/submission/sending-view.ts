import { Type, type Static } from '@sinclair/typebox';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { getEcf } from '../ecf/queries.js';
import { RetryView, type EcfView } from '../ecf/views.js';
import { DateTime, Nullable, Uuid } from '../schema-types.js';
import { begin } from '../taxauth/conversation.js';
import { FINAL_STATES } from './rules.js';
import { parseJsonColumn } from '../json-column.js';
import { conversationOf, SendingState, SUBMIT_KIND } from './sending.js';

/**
 * Where an e-CF's sending stands, read from the one place each part lives
 * (sending.ts): its status, the authority's receipt and automatic resends
 * from its row, and, while it is being sent, the conversation and the time
 * of its next move from its work item. The API (GET /ecf/{id}/sending), the
 * CLI (`ecf status`) and the console's e-CF page show this view; the job
 * reads the same state through sending.ts.
 */
export const EcfSending = Type.Object({
  id: Uuid(),
  encf: Type.String(),
  status: Type.String({ description: 'The e-CF status (signed until a verdict)' }),
  trackId: Nullable(Type.String({ description: "The authority's receipt, once it gave one" })),
  next: Nullable(
    Type.Union([Type.Literal('send'), Type.Literal('ask'), Type.Literal('poll')], {
      description: 'The call the next move makes: send the signed bytes; ask whether a send that got no answer arrived (before sending again); poll the verdict of the receipt. Null when nothing is queued',
    }),
  ),
  dueAt: Nullable(DateTime({ description: 'When the next move runs' })),
  inFlight: Type.Boolean({ description: 'A worker is making the move now' }),
  polls: Type.Integer({ description: 'Verdict queries answered "still processing", in a row' }),
  failures: Type.Integer({ description: 'Calls that could not reach the authority, in a row' }),
  busy: Type.Integer({ description: 'Answers "overloaded" (429, 503), in a row' }),
  lastError: Nullable(Type.String({ description: 'Why the last move did not get through, when it did not' })),
  retry: Nullable(RetryView),
});
export type EcfSending = Static<typeof EcfSending>;

/** The sending state of an e-CF the caller already read (and checked the tenant of). */
export async function sendingOf(engine: Engine, ecf: EcfView): Promise<EcfSending> {
  const work = FINAL_STATES.has(ecf.status)
    ? undefined
    : await engine.db
        .selectFrom('work')
        .select(['id', 'payload', 'due_at', 'lease_owner', 'lease_expires_at', 'last_error'])
        .where('kind', '=', SUBMIT_KIND)
        .where('ref', '=', ecf.id)
        .executeTakeFirst();
  const trackId = ecf.taxauth?.trackId ?? null;
  const base = { id: ecf.id, encf: ecf.encf, status: ecf.status, trackId, retry: ecf.retry };
  if (!work) return { ...base, next: null, dueAt: null, inFlight: false, polls: 0, failures: 0, busy: 0, lastError: null };
  const state = parseJsonColumn(SendingState, work.payload, `work.payload (ecf.submit ${work.id})`);
  const conversation = conversationOf(state, trackId ?? undefined);
  const call = begin(conversation).command.do;
  const now = engine.clock.now().toISOString();
  return {
    ...base,
    next: call === 'send' || call === 'ask' || call === 'poll' ? call : null,
    dueAt: toDominicanIso(work.due_at),
    inFlight: work.lease_owner !== null && work.lease_expires_at !== null && work.lease_expires_at > now,
    polls: conversation.polls,
    failures: conversation.failures,
    busy: conversation.busy,
    lastError: work.last_error,
  };
}

/** GET /ecf/{id}/sending: 404 as GET /ecf/{id}. */
export const getEcfSending = async (engine: Engine, tenantId: string, id: string): Promise<EcfSending> => sendingOf(engine, await getEcf(engine, tenantId, id));
