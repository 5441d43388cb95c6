import { undici } from '../net/undici.js';
import { signingCredentials } from '../certificates/certificates.js';
import type { Engine } from '../engine-types.js';
import type { Environment } from '../schema-types.js';
import { signingKey } from '../signing/xmldsig.js';
import { afterCommit, inTransaction } from '../store/database.js';
import type { ApprovalDeliveryState } from '../store/schema.js';
import { multipartBody, uploadName } from '../taxauth/client.js';
import { TaxauthError, collapseErrorBody } from '../taxauth/errors.js';
import { isDefiniteRefusal } from '../taxauth/conversation.js';
import { signSeed } from '../taxauth/token-cache.js';
import { complete, reschedule, type WorkItem } from '../work/queue.js';
import { RECORDED, type WorkOutcome } from '../work/run.js';
import type { DeliverApprovalPayload } from './approve.js';
import { nextRung } from '../work/ladder.js';
import { APPROVAL_DELIVERY_LADDER_MS, RECEIVER_TIMEOUT_MS } from './rules.js';
import { readDecidedAcecf } from './stored.js';

/**
 * Delivers an outgoing ACECF (NOTES §10.3, §10.5): to the issuer's receiver,
 * `{urlAceptacion}/fe/aprobacioncomercial/api/ecf`, found through the
 * authority's directory (authenticating first at `{urlOpcional}/fe/autenticacion`
 * when the entry has one), and to the authority's aprobacioncomercial
 * service. Each target is one work item; the network calls run outside any
 * transaction and each result is recorded with the item's next step in one.
 *
 * A 2xx (the authority: codigo 1) is delivered. A definite no (a 4xx other
 * than 401, 408 and 429 from the receiver; codigo 2 from the authority other
 * than its "try again" message) is refused, for good. Anything else is
 * tried again after 10 s, 1 min, 5 min, 30 min, 2 h and 6 h; the 7th failure
 * is failed.
 */


class Refused extends Error {}

export async function deliverApprovalHandler(engine: Engine, item: WorkItem): Promise<WorkOutcome> {
  const { approvalId, target } = item.payload as DeliverApprovalPayload;
  const approval = await engine.db
    .selectFrom('received_ecf_approvals as a')
    .innerJoin('received_ecf as r', 'r.id', 'a.received_ecf_id')
    .innerJoin('tenants as t', 't.id', 'a.tenant_id')
    .select(['a.id', 'a.tenant_id', 'a.xml', 'a.xml_sha256', 'a.issuer_delivery', 'a.taxauth_delivery', 'r.issuer_rnc', 'r.encf', 'r.environment', 't.rnc as tenant_rnc'])
    .where('a.id', '=', approvalId)
    .executeTakeFirst();
  if (!approval) return { done: true };
  const column = target === 'issuer' ? 'issuer_delivery' : 'taxauth_delivery';
  const state = JSON.parse(approval[column]) as ApprovalDeliveryState;
  if (state.status !== 'pending') return { done: true };
  const environment = approval.environment as Environment;
  // Decompressed and checked against its SHA-256: a damaged ACECF is never sent (DocumentDamaged).
  const xml = await readDecidedAcecf(engine, approval, approval.encf);
  const upload = { rnc: approval.tenant_rnc, encf: approval.encf, xml };

  let url = state.url;
  let outcome: { status: 'delivered' } | { status: 'refused' | 'retry'; error: string };
  try {
    if (target === 'taxauth') {
      const client = await engine.taxauth.client(environment);
      const verdict = await engine.taxauth.withToken(approval.tenant_id, environment, (t) => client.sendCommercialApproval(t, upload));
      const said = [verdict.status, ...verdict.messages].filter(Boolean).join('; ');
      if (verdict.code === 1) outcome = { status: 'delivered' };
      else if (/intentar nuevamente/i.test(said)) outcome = { status: 'retry', error: `codigo ${verdict.code}: ${said}` };
      else outcome = { status: 'refused', error: `codigo ${verdict.code}: ${said}` };
    } else {
      const client = await engine.taxauth.client(environment);
      const entry = await engine.taxauth.withToken(approval.tenant_id, environment, (t) => client.directory(t, approval.issuer_rnc));
      if (!entry?.approvalUrl) throw new Error(`${approval.issuer_rnc} has no commercial-approval URL in the authority's directory`);
      url = `${entry.approvalUrl.replace(/\/+$/, '')}/fe/aprobacioncomercial/api/ecf`;
      const bearer = entry.authenticationUrl ? await receiverToken(engine, approval.tenant_id, entry.authenticationUrl) : null;
      await postToReceiver(url, uploadName(upload), xml, bearer);
      outcome = { status: 'delivered' };
    }
  } catch (e) {
    const error = describe(e);
    const definite = e instanceof Refused || (e instanceof TaxauthError && isDefiniteRefusal(e));
    outcome = { status: definite ? 'refused' : 'retry', error };
  }

  const now = engine.clock.now();
  const attempts = state.attempts + 1;
  const nextAt = outcome.status === 'retry' ? nextRung(APPROVAL_DELIVERY_LADDER_MS, attempts, now) : null;
  const exhausted = outcome.status === 'retry' && nextAt === null;
  const next: ApprovalDeliveryState = {
    status: outcome.status === 'delivered' ? 'delivered' : outcome.status === 'refused' ? 'refused' : exhausted ? 'failed' : 'pending',
    attempts,
    lastError: outcome.status === 'delivered' ? null : outcome.error.slice(0, 1000),
    lastAttemptAt: now.toISOString(),
    nextAttemptAt: nextAt ? nextAt.toISOString() : null,
    deliveredAt: outcome.status === 'delivered' ? now.toISOString() : null,
    url,
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

/**
 * Each attempt at an outgoing ACECF, once recorded: a refusal or the last
 * failure at warn with the e-NCF and the reason the other side gave (what
 * the operator must act on), a failure that will be tried again at info.
 */
function logDelivery(engine: Engine, about: { tenantId: string; encf: string; issuerRnc: string; target: 'issuer' | 'taxauth' }, next: ApprovalDeliveryState): void {
  const fields = { ...about, approvalDelivery: next.status, attempt: next.attempts, ...(next.lastError && { reason: next.lastError }), ...(next.url && { url: next.url }) };
  const to = about.target === 'issuer' ? `the issuer ${about.issuerRnc}` : 'the authority';
  if (next.status === 'delivered') engine.log.info(fields, `commercial approval of ${about.encf} delivered to ${to}`);
  else if (next.status === 'refused') engine.log.warn(fields, `commercial approval of ${about.encf} refused by ${to}: ${next.lastError}`);
  else if (next.status === 'failed') engine.log.warn(fields, `commercial approval of ${about.encf} not delivered to ${to} after ${next.attempts} attempts: ${next.lastError}`);
  else engine.log.info(fields, `commercial approval of ${about.encf} not delivered to ${to} yet (attempt ${next.attempts}, next at ${next.nextAttemptAt}): ${next.lastError}`);
}

/** Seed, signature, token at another taxpayer's optional authentication service (NOTES §10.5 step 3). */
async function receiverToken(engine: Engine, tenantId: string, base: string): Promise<string> {
  const root = base.replace(/\/+$/, '');
  const seed = await call(`${root}/fe/autenticacion/api/semilla`, { method: 'GET', headers: { accept: 'application/xml' } });
  const credentials = await signingCredentials(engine, tenantId);
  const signed = signSeed(seed.body, signingKey(credentials.privateKey, credentials.certificate));
  const form = multipartBody('xml', 'semilla.xml', 'text/xml', Buffer.from(signed, 'utf8'));
  const answer = await call(`${root}/fe/autenticacion/api/validacioncertificado`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': form.contentType, 'content-length': String(form.body.length) },
    body: form.body,
  });
  let token: unknown;
  try {
    token = (JSON.parse(answer.body) as { token?: unknown }).token;
  } catch {
    token = /<token>([^<]+)<\/token>/i.exec(answer.body)?.[1];
  }
  if (typeof token !== 'string' || !token) throw new Error("the receiver's validacioncertificado answered without a token");
  return token;
}

async function postToReceiver(url: string, fileName: string, xml: Buffer, bearer: string | null): Promise<void> {
  const form = multipartBody('xml', fileName, 'text/xml', xml);
  const headers: Record<string, string> = { 'content-type': form.contentType, 'content-length': String(form.body.length) };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  await call(url, { method: 'POST', headers, body: form.body });
}

/** One request with a whole-call timeout; a definite 4xx is Refused, anything else non-2xx an Error. */
async function call(url: string, options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: Buffer }): Promise<{ body: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), RECEIVER_TIMEOUT_MS);
  try {
    const response = await undici().request(url, { ...options, signal: controller.signal, headers: { 'user-agent': 'ecf-appliance', ...options.headers } });
    const body = await response.body.text();
    if (response.statusCode >= 200 && response.statusCode < 300) return { body };
    const said = collapseErrorBody(body, String(response.headers['content-type'] ?? '')) || `HTTP ${response.statusCode}`;
    const message = `${new URL(url).pathname}: HTTP ${response.statusCode}: ${said}`;
    const s = response.statusCode;
    if (s >= 400 && s < 500 && s !== 401 && s !== 408 && s !== 429) throw new Refused(message);
    throw new Error(message);
  } catch (e) {
    if (controller.signal.aborted) throw new Error(`no answer from ${new URL(url).host} within ${RECEIVER_TIMEOUT_MS} ms`);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  return `${typeof code === 'string' ? `${code}: ` : ''}${e.message}`;
}
