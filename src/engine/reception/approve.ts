import { Type } from '@sinclair/typebox';
import { signingCredentials } from '../certificates/certificates.js';
import { xmlDate } from '../documents/ecf-xml.js';
import type { Engine } from '../engine-types.js';
import { ValidationError, conflict, notFound, type FieldError } from '../errors.js';
import { newId } from '../ids.js';
import { Dec } from '../money.js';
import { Nullable, type Environment } from '../schema-types.js';
import { signingKey } from '../signing/xmldsig.js';
import { inTransaction } from '../store/database.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { appendJournal } from '../journal/append.js';
import { fieldErrors } from '../validation.js';
import { laneOf, RECEIVERS_GROUP, taxauthGroup } from '../work/lanes.js';
import { enqueue } from '../work/queue.js';
import { isApprovalAutomatic, signAcecf } from './documents.js';
import { getReceivedEcf } from './queries.js';
import { DECISIONS, RECEIVED_COLUMNS, type Decision, type ReceivedEcfView } from './views.js';

export const DELIVER_APPROVAL_KIND = 'acecf.deliver';
export type ApprovalTarget = 'issuer' | 'taxauth';
import type { ApprovalDeliveryState, DeliverApprovalPayload } from './delivery-state.js';

export const MAX_REJECTION_REASON = 250;

export const CommercialApprovalBody = Type.Object(
  {
    decision: Type.String({ description: `${DECISIONS.join(' or ')}` }),
    rejectionReason: Type.Optional(Nullable(Type.String({ description: `Required when rejected, at most ${MAX_REJECTION_REASON} characters; absent or null when accepted` }))),
  },
  { additionalProperties: false },
);

/** Every problem with the body at once: its shape, the decision value and the reason rule. */
function checkBody(body: unknown): { decision: Decision; rejectionReason: string | null } {
  const errors: FieldError[] = [...fieldErrors(CommercialApprovalBody, body)];
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const decision = b.decision;
  const reason = typeof b.rejectionReason === 'string' ? b.rejectionReason.trim() : null;
  if (typeof decision === 'string' && !(DECISIONS as readonly string[]).includes(decision)) {
    errors.push({ path: 'decision', code: 'ReceivedEcf.InvalidDecision', message: `must be ${DECISIONS.join(' or ')}` });
  }
  if (decision === 'rejected' && !reason && (b.rejectionReason === undefined || b.rejectionReason === null || typeof b.rejectionReason === 'string')) {
    errors.push({ path: 'rejectionReason', code: 'ReceivedEcf.RejectionReasonRequired', message: 'is required when the decision is rejected' });
  }
  if (decision === 'accepted' && reason) {
    errors.push({ path: 'rejectionReason', code: 'ReceivedEcf.RejectionReasonNotAllowed', message: 'must be absent or null when the decision is accepted' });
  }
  if (reason && reason.length > MAX_REJECTION_REASON) {
    errors.push({ path: 'rejectionReason', code: 'ReceivedEcf.RejectionReasonTooLong', message: `must be at most ${MAX_REJECTION_REASON} characters (the ACECF's limit)` });
  }
  if (errors.length) throw new ValidationError(errors);
  return { decision: decision as Decision, rejectionReason: decision === 'rejected' ? reason : null };
}

const pending = (url: string | null = null): ApprovalDeliveryState => ({
  status: 'pending',
  attempts: 0,
  lastError: null,
  lastAttemptAt: null,
  nextAttemptAt: null,
  deliveredAt: null,
  url,
});

/**
 * The tenant's commercial decision over a received e-CF: builds and signs the
 * ACECF and queues its delivery to the issuer's receiver (found through the
 * authority's directory) and to the authority, each with its own retries.
 * 409 when approval does not apply to the type, the e-CF was not received, or
 * a decision exists already; 400 with every problem of the body.
 */
export async function decideCommercialApproval(engine: Engine, tenantId: string, id: string, body: unknown): Promise<ReceivedEcfView> {
  const input = checkBody(body);
  const tenant = await requireTenant(engine.db, tenantId);
  const view = await getReceivedEcf(engine, tenantId, id);
  if (view.status !== 'received') {
    throw conflict('ReceivedEcf.NotReceived', 'This e-CF was not received (see its ARECF); there is nothing to approve or reject.');
  }
  if (isApprovalAutomatic(view.type)) {
    throw conflict('ReceivedEcf.ApprovalNotApplicable', `Commercial approval does not apply to type ${view.type}.`);
  }
  if (view.commercialApproval) {
    throw conflict('ReceivedEcf.AlreadyDecided', `A decision (${view.commercialApproval.decision}) was made already.`);
  }
  const credentials = await signingCredentials(engine, tenantId);
  const now = engine.clock.now();
  const row = await engine.db.selectFrom('received_ecf').select(RECEIVED_COLUMNS).where('id', '=', view.id).executeTakeFirst();
  if (!row || !row.issue_date || !row.monto_total) throw notFound('ReceivedEcf');
  const acecf = signAcecf(
    {
      issuerRnc: row.issuer_rnc,
      encf: row.encf,
      issueDate: xmlDate(row.issue_date),
      montoTotal: new Dec(row.monto_total).toFixed(2),
      buyerRnc: tenant.rnc,
      decision: input.decision,
      rejectionReason: input.rejectionReason,
      at: now,
    },
    signingKey(credentials.privateKey, credentials.certificate),
  );
  const prepared = await engine.documents.prepare(Buffer.from(acecf.xml, 'utf8'));
  await inTransaction(engine.db, async (tx) => {
    const existing = await tx.selectFrom('received_ecf_approvals').select('decision').where('received_ecf_id', '=', row.id).executeTakeFirst();
    if (existing) throw conflict('ReceivedEcf.AlreadyDecided', `A decision (${existing.decision}) was made already.`);
    const approvalId = newId();
    await tx
      .insertInto('received_ecf_approvals')
      .values({
        id: approvalId,
        received_ecf_id: row.id,
        tenant_id: tenantId,
        decision: input.decision,
        rejection_reason: input.rejectionReason,
        xml: (await engine.documents.store(tx, prepared)).blob,
        xml_sha256: acecf.sha256,
        decided_at: now.toISOString(),
        issuer_delivery: JSON.stringify(pending()),
        taxauth_delivery: JSON.stringify(pending()),
      })
      .execute();
    appendJournal(tx, now, { tenantKey: await tenantKey(tx, tenantId), kind: 'received.answered', ref: row.id, digest: Buffer.from(acecf.sha256, 'hex'), data: `ACECF ${input.decision}` });
    for (const target of ['issuer', 'taxauth'] as const) {
      await enqueue(tx, now, {
        kind: DELIVER_APPROVAL_KIND,
        tenantId,
        ref: `${approvalId}:${target}`,
        lane: laneOf(target === 'issuer' ? RECEIVERS_GROUP : taxauthGroup(row.environment as Environment), tenantId, 'acecf'),
        payload: { approvalId, target } satisfies DeliverApprovalPayload,
      });
    }
  });
  return getReceivedEcf(engine, tenantId, row.id);
}
