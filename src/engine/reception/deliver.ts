import type { Engine } from '../engine-types.js';
import type { Environment } from '../schema-types.js';
import { afterCommit, inTransaction } from '../store/database.js';
import { uploadName } from '../taxauth/upload.js';
import { TaxauthError } from '../taxauth/errors.js';
import { begin, eventOfError, prepared, step, type Command, type ConversationEvent } from '../taxauth/conversation.js';
import { complete, reschedule, type WorkItem } from '../work/queue.js';
import { RECORDED, type WorkOutcome } from '../work/run.js';
import { nextRung } from '../work/ladder.js';
import { DeliverApprovalPayload, deliveryStateOf, type ApprovalDeliveryState } from './delivery-state.js';
import { ReceiverError, describeError, postToReceiver, receiverToken } from './receiver-client.js';
import { APPROVAL_DELIVERY_LADDER_MS, DELIVERY_CONVERSATION_LIMITS, deliveryOutcome } from './rules.js';
import { readDecidedAcecf } from './stored.js';
import { checkJsonColumn } from '../json-column.js';

/**
 * Delivers an outgoing ACECF (NOTES §10.3, §10.5): to the issuer's receiver,
 * `{urlAceptacion}/fe/aprobacioncomercial/api/ecf`, found through the
 * authority's directory (authenticating first at `{urlOpcional}/fe/autenticacion`
 * when the entry has one; receiver-client.ts), and to the authority's
 * aprobacioncomercial service. Each target is one work item; the network
 * calls run outside any transaction and each result is recorded with the
 * item's next step in one.
 *
 * Each attempt is one exchange of the conversation with the authority
 * (taxauth/conversation.ts): begin → send → the answer or the failure as an
 * event, and rules.ts reads the last move: delivered, refused for good, or
 * tried again after 10 s, 1 min, 5 min, 30 min, 2 h and 6 h; the 7th
 * failure is failed.
 */

type Target = 'issuer' | 'taxauth';

interface Approval {
  readonly id: string;
  readonly tenant_id: string;
  readonly issuer_rnc: string;
  readonly encf: string;
  readonly environment: string;
  readonly tenant_rnc: string;
}

/** What one attempt came to: the conversation's last command, the other side's reason when it was not a delivery, and where it went. */
interface Attempt {
  readonly command: Command;
  readonly error: string | null;
  readonly url: string | null;
}

export async function deliverApprovalHandler(engine: Engine, item: WorkItem): Promise<WorkOutcome> {
  const { approvalId, target } = checkJsonColumn(DeliverApprovalPayload, item.payload, `work.payload of work item ${item.id}`);
  const approval = await engine.db
    .selectFrom('received_ecf_approvals as a')
    .innerJoin('received_ecf as r', 'r.id', 'a.received_ecf_id')
    .innerJoin('tenants as t', 't.id', 'a.tenant_id')
    .select(['a.id', 'a.tenant_id', 'a.xml', 'a.xml_sha256', 'a.issuer_delivery', 'a.taxauth_delivery', 'r.issuer_rnc', 'r.encf', 'r.environment', 't.rnc as tenant_rnc'])
    .where('a.id', '=', approvalId)
    .executeTakeFirst();
  if (!approval) return { done: true };
  const column = target === 'issuer' ? 'issuer_delivery' : 'taxauth_delivery';
  const state = deliveryStateOf(approval[column], column, approval.id);
  if (state.status !== 'pending') return { done: true };
  // Decompressed and checked against its SHA-256: a damaged ACECF is never sent (DocumentDamaged).
  const xml = await readDecidedAcecf(engine, approval, approval.encf);
  const attempt = await attemptDelivery(engine, approval, target, xml, state.url);

  const outcome = deliveryOutcome(attempt.command);
  const now = engine.clock.now();
  const attempts = state.attempts + 1;
  const nextAt = outcome === 'retry' ? nextRung(APPROVAL_DELIVERY_LADDER_MS, attempts, now) : null;
  const exhausted = outcome === 'retry' && nextAt === null;
  const next: ApprovalDeliveryState = {
    status: outcome === 'delivered' ? 'delivered' : outcome === 'refused' ? 'refused' : exhausted ? 'failed' : 'pending',
    attempts,
    lastError: outcome === 'delivered' ? null : (attempt.error ?? '').slice(0, 1000),
    lastAttemptAt: now.toISOString(),
    nextAttemptAt: nextAt ? nextAt.toISOString() : null,
    deliveredAt: outcome === 'delivered' ? now.toISOString() : null,
    url: attempt.url,
  };
  const owner = item.leaseOwner!;
  await inTransaction(engine.db, async (tx) => {
    const kept = nextAt ? await reschedule(tx, now, item, owner, { dueAt: nextAt, error: next.lastError }) : await complete(tx, item, owner);
    // A lost lease means another worker took the item over; its record wins.
    if (!kept) return;
    await tx.updateTable('received_ecf_approvals').set({ [column]: JSON.stringify(next) }).where('id', '=', approval.id).execute();
    afterCommit(tx, () => logDelivery(engine, { tenantId: approval.tenant_id, encf: approval.encf, issuerRnc: approval.issuer_rnc, target }, next));
  });
  return RECORDED;
}

/** One send of the ACECF to `target`, outside any transaction: the exchange's last move, and what the other side said. */
async function attemptDelivery(engine: Engine, approval: Approval, target: Target, xml: Buffer, lastUrl: string | null): Promise<Attempt> {
  const environment = approval.environment as Environment;
  const upload = { rnc: approval.tenant_rnc, encf: approval.encf, xml };
  const sending = begin(prepared());
  let url = lastUrl;
  try {
    const client = await engine.taxauth.client(environment);
    if (target === 'taxauth') {
      const verdict = await engine.taxauth.withToken(approval.tenant_id, environment, (t) => client.sendCommercialApproval(t, upload));
      const said = [verdict.status, ...verdict.messages].filter(Boolean).join('; ');
      // Codigo 2 is a refusal, unless the authority says to try again: then the same ACECF goes again on the ladder.
      const event: ConversationEvent = verdict.code === 1 ? { type: 'verdict' } : /intentar nuevamente/i.test(said) ? { type: 'resend' } : { type: 'refused' };
      const move = step(sending.state, event, DELIVERY_CONVERSATION_LIMITS);
      return { command: move.command, error: verdict.code === 1 ? null : `codigo ${verdict.code}: ${said}`, url };
    }
    const entry = await engine.taxauth.withToken(approval.tenant_id, environment, (t) => client.directory(t, approval.issuer_rnc));
    if (!entry?.approvalUrl) throw new Error(`${approval.issuer_rnc} has no commercial-approval URL in the authority's directory`);
    url = `${entry.approvalUrl.replace(/\/+$/, '')}/fe/aprobacioncomercial/api/ecf`;
    const bearer = entry.authenticationUrl ? await receiverToken(engine, approval.tenant_id, entry.authenticationUrl) : null;
    await postToReceiver(url, uploadName(upload), xml, bearer);
    return { command: step(sending.state, { type: 'verdict' }, DELIVERY_CONVERSATION_LIMITS).command, error: null, url };
  } catch (e) {
    // The authority's port renews a refused token once; a receiver's token is new at every attempt: a 401 here is not renewed again.
    const move = step({ ...sending.state, renewed: true }, eventOf(e), DELIVERY_CONVERSATION_LIMITS);
    return { command: move.command, error: describeError(e), url };
  }
}

/**
 * A failure as a conversation event: the authority's and the receiver's the
 * same way (eventOfError); any other (a directory without the receiver's
 * URL, credentials not at hand) is one no retry within the attempt mends.
 */
function eventOf(e: unknown): ConversationEvent {
  if (e instanceof TaxauthError || e instanceof ReceiverError) return eventOfError(e);
  return { type: 'broken' };
}

/**
 * Each attempt at an outgoing ACECF, once recorded: a refusal or the last
 * failure at warn with the e-NCF and the reason the other side gave (what
 * the operator must act on), a failure that will be tried again at info.
 */
function logDelivery(engine: Engine, about: { tenantId: string; encf: string; issuerRnc: string; target: Target }, next: ApprovalDeliveryState): void {
  const fields = { ...about, approvalDelivery: next.status, attempt: next.attempts, ...(next.lastError && { reason: next.lastError }), ...(next.url && { url: next.url }) };
  const to = about.target === 'issuer' ? `the issuer ${about.issuerRnc}` : 'the authority';
  if (next.status === 'delivered') engine.log.info(fields, `commercial approval of ${about.encf} delivered to ${to}`);
  else if (next.status === 'refused') engine.log.warn(fields, `commercial approval of ${about.encf} refused by ${to}: ${next.lastError}`);
  else if (next.status === 'failed') engine.log.warn(fields, `commercial approval of ${about.encf} not delivered to ${to} after ${next.attempts} attempts: ${next.lastError}`);
  else engine.log.info(fields, `commercial approval of ${about.encf} not delivered to ${to} yet (attempt ${next.attempts}, next at ${next.nextAttemptAt}): ${next.lastError}`);
}
