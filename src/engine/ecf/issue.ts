import type { Selectable } from 'kysely';
import { dominicanDate } from '../clock.js';
import type { Engine } from '../engine.js';
import { EngineError, ValidationError, conflict } from '../errors.js';
import { emit } from '../events/outbox.js';
import { newId } from '../ids.js';
import { money } from '../money.js';
import { signingCredentials } from '../certificates/certificates.js';
import { signEcfOffThread } from '../documents/sign-ecf.js';
import { computeTotals } from '../documents/totals.js';
import { validateIssue, type NormalizedDocument } from '../documents/validate.js';
import type { Issuer } from '../documents/ecf-xml.js';
import { signingKey } from '../signing/xmldsig.js';
import { allocateIn, annulmentOf } from '../sequences/ranges.js';
import { getSettings } from '../settings/settings.js';
import type { Db, Tx } from '../store/database.js';
import { inGroupCommit } from '../store/group-commit.js';
import { isUniqueViolation } from '../store/locking.js';
import { insertRow, prepared } from '../store/prepared.js';
import type { EcfTable } from '../store/schema.js';
import type { Environment } from '../schema-types.js';
import { getEmitterProfile } from '../tenants/emitter-profile.js';
import { requireTenant } from '../tenants/tenants.js';
import { sha256Hex, stableStringify } from './canonical-json.js';
import { searchKey } from './search-key.js';
import { contingencyState } from '../submission/contingency.js';
import { queueSubmission } from '../submission/submit.js';
import { ecfView, type EcfView } from './views.js';
import { assertEmissionOpen } from '../limits/pause.js';
import { assertUnderMonthlyCap, noteMonthlyEmission } from '../limits/monthly-cap.js';
import { noteOrganizationUsage } from '../limits/usage.js';

export interface IssueRequest {
  /** The Idempotency-Key: one e-CF per key and tenant, forever. */
  readonly idempotencyKey: string;
  readonly payload: unknown;
  /** Defaults to the tenant's default environment. */
  readonly environment?: Environment;
}

export interface IssueResult {
  readonly ecf: EcfView;
  /** false when the key or the internalNumber had already issued this e-CF. */
  readonly created: boolean;
}

type Row = Selectable<EcfTable>;

const MAX_KEY_LENGTH = 200;

const byKey_ = prepared((db, p: { tenantId: string; key: string }) =>
  db.selectFrom('ecf').selectAll().where('tenant_id', '=', p.tenantId).where('idempotency_key', '=', p.key),
);
const byInternalNumber_ = prepared((db, p: { tenantId: string; internalNumber: string }) =>
  db.selectFrom('ecf').selectAll().where('tenant_id', '=', p.tenantId).where('internal_number', '=', p.internalNumber),
);
const byKey = async (db: Db, tenantId: string, key: string): Promise<Row | undefined> => (await byKey_(db, { tenantId, key }))[0];
const byInternalNumber = async (db: Db, tenantId: string, internalNumber: string): Promise<Row | undefined> =>
  (await byInternalNumber_(db, { tenantId, internalNumber }))[0];

/** An e-CF this request already issued, if any: same key (and same body), or same internalNumber. */
async function replay(db: Db, tenantId: string, key: string, requestHash: string, internalNumber: string | null): Promise<Row | undefined> {
  const sameKey = await byKey(db, tenantId, key);
  if (sameKey) {
    if (sameKey.request_hash !== requestHash) {
      throw conflict(
        'Ecf.IdempotencyKeyReused',
        `The Idempotency-Key was already used with a different body (it issued ${sameKey.encf}); use a new key for a new e-CF.`,
      );
    }
    return sameKey;
  }
  return internalNumber ? byInternalNumber(db, tenantId, internalNumber) : undefined;
}

const internalNumberOf = (payload: unknown): string | null => {
  const n = (payload as { internalNumber?: unknown } | null)?.internalNumber;
  return typeof n === 'string' && n.length > 0 ? n : null;
};

/** What makes two e-CF "the same sale" for duplicate detection. */
function fingerprint(doc: NormalizedDocument, montoTotal: string): string {
  const b = doc.command.buyer;
  return sha256Hex(
    stableStringify({
      type: doc.type,
      buyer: b?.rnc ?? b?.foreignId ?? b?.name ?? null,
      total: montoTotal,
      lines: doc.lines.map((l) => [l.name, l.quantity.toString(), l.unitPrice.toString()]),
    }),
  );
}

/**
 * POST /ecf: validates, numbers, signs and stores an e-CF. The number is
 * allocated in the same transaction that stores the signed bytes, so a
 * failure anywhere gives the number back. Idempotent per Idempotency-Key and
 * per internalNumber.
 */
export async function issueEcf(engine: Engine, tenantId: string, request: IssueRequest): Promise<IssueResult> {
  const key = request.idempotencyKey?.trim();
  if (!key || key.length > MAX_KEY_LENGTH) {
    throw new EngineError('validation', 'Ecf.IdempotencyKeyRequired', `Send an Idempotency-Key header of 1 to ${MAX_KEY_LENGTH} characters; it makes retrying safe.`);
  }
  const requestHash = sha256Hex(stableStringify(request.payload));
  const internalNumber = internalNumberOf(request.payload);
  const known = await replay(engine.db, tenantId, key, requestHash, internalNumber);
  if (known) return { ecf: ecfView(known), created: false };

  const tenant = await requireTenant(engine.db, tenantId);
  const profile = await getEmitterProfile(engine, tenantId);
  const environment = request.environment ?? (tenant.default_environment as Environment);
  const now = engine.clock.now();
  // Everything read from the store is read before the transaction: inside it the one connection is `tx`'s.
  const settings = await getSettings(
    engine,
    ['sequences.mode', 'duplicates.mode', 'duplicates.window_minutes', 'sequences.low_stock_fraction', 'limits.monthly_ecf_cap'],
    tenantId,
  );
  // The monthly cap counts production e-CF only.
  const monthlyCap = environment === 'production' ? (settings['limits.monthly_ecf_cap'] as number | null) : null;
  const sequenceMode = settings['sequences.mode'] as 'managed' | 'external';
  const duplicateMode = settings['duplicates.mode'] as 'off' | 'observar' | 'rechazar';
  const windowMinutes = settings['duplicates.window_minutes'] as number;
  const lowStockFraction = settings['sequences.low_stock_fraction'] as number;
  const outcome = validateIssue(request.payload, { sequenceMode, today: dominicanDate(now) });
  if (!outcome.document) throw new ValidationError(outcome.errors, 'The e-CF payload has invalid fields.');
  const doc = outcome.document;
  const computed = computeTotals(doc.totalsInput);
  const credentials = await signingCredentials(engine, tenantId);
  const key_ = signingKey(credentials.privateKey, credentials.certificate);
  const issuer: Issuer = {
    rnc: tenant.rnc,
    legalName: tenant.legal_name,
    tradeName: tenant.trade_name,
    address: profile.address,
    municipality: profile.municipality,
    province: profile.province,
    phones: profile.phones,
    email: profile.email,
    economicActivity: profile.economicActivity,
  };
  const contingency = await contingencyState(engine.db);
  const montoTotal = money(computed.totals.montoTotal);
  const print = fingerprint(doc, montoTotal);
  const toleranceWarning = outcome.warnings.length ? outcome.warnings.map((w) => `${w.path}: ${w.message}`).join('; ') : null;

  return inGroupCommit(engine.db, async (tx) => {
    // Another request with this key or internal number may have committed since the first look
    // (on PostgreSQL one may also commit after this look: the unique indexes catch it, below).
    const raced = await replay(tx, tenantId, key, requestHash, internalNumber);
    if (raced) return { ecf: ecfView(raced), created: false };

    // A replay above still answers while paused or at the cap: only new e-CF are refused.
    await assertEmissionOpen(tx, now, tenantId, tenant.organization_id);
    await assertUnderMonthlyCap(tx, now, tenantId, monthlyCap);

    const previous = duplicateMode === 'off' ? undefined : await recentTwin(tx, tenantId, print, new Date(now.getTime() - windowMinutes * 60_000));
    if (previous && duplicateMode === 'rechazar') {
      throw conflict('Ecf.DuplicateSuspected', `This e-CF matches ${previous.encf} issued at ${previous.issued_at} (same buyer, total and lines); change it or turn duplicates.mode to observar.`);
    }

    let numbering: { encf: string; sequenceExpiresOn: string | null; rangeId: string | null };
    if (sequenceMode === 'managed') {
      const a = await allocateIn(tx, now, tenantId, environment, doc.type, lowStockFraction);
      numbering = { encf: a.encf, sequenceExpiresOn: a.expiresOn, rangeId: a.rangeId };
    } else {
      const used = await tx.selectFrom('ecf').select('id').where('tenant_id', '=', tenantId).where('environment', '=', environment).where('encf', '=', doc.encf!).executeTakeFirst();
      if (used) throw conflict('Ecf.EncfAlreadyUsed', `The e-NCF ${doc.encf} was already used by this tenant in ${environment}.`);
      const annulment = await annulmentOf(tx, tenantId, environment, doc.encf!);
      if (annulment) throw conflict('Ecf.EncfAnnulled', `The e-NCF ${doc.encf} was annulled (annulment ${annulment}); an annulled number can never be used.`);
      numbering = { encf: doc.encf!, sequenceExpiresOn: doc.sequenceExpiresOn, rangeId: null };
    }

    const signed = await signEcfOffThread({ document: doc, computed, issuer, numbering, key: key_, environment, now });
    const row: Row = {
      id: newId(),
      tenant_id: tenantId,
      environment,
      type: doc.type,
      encf: numbering.encf,
      status: 'signed',
      sequence_expires_on: numbering.sequenceExpiresOn,
      issue_date: doc.issueDate,
      issued_at: now.toISOString(),
      signed_at: now.toISOString(),
      security_code: signed.securityCode,
      qr_url: signed.qrUrl,
      submits_rfce: signed.rfceXml ? 1 : 0,
      internal_number: internalNumber,
      tolerance_warning: toleranceWarning,
      signed_during_contingency: contingency.active ? 1 : 0,
      monto_total: montoTotal,
      monto_total_cents: Number(computed.totals.montoTotal.times(100).toFixed(0)),
      buyer_rnc: doc.command.buyer?.rnc ?? null,
      buyer_name: doc.command.buyer?.name ?? null,
      buyer_name_key: doc.command.buyer?.name ? searchKey(doc.command.buyer.name) : null,
      document_hash: signed.xmlSha256,
      idempotency_key: key,
      request_hash: requestHash,
      fingerprint: print,
      sequence_range_id: numbering.rangeId,
      taxauth: null,
      retry: null,
      updated_at: null,
    };
    await insertRow(tx, 'ecf', row);
    await insertRow(tx, 'ecf_documents', {
      ecf_id: row.id,
      xml: Buffer.from(signed.xml, 'utf8'),
      rfce_xml: signed.rfceXml ? Buffer.from(signed.rfceXml, 'utf8') : null,
    });
    await queueSubmission(tx, now, { id: row.id, tenantId });
    if (environment === 'production') {
      await noteMonthlyEmission(tx, now, tenantId, monthlyCap);
      if (tenant.organization_id) await noteOrganizationUsage(tx, now, tenant.organization_id);
    }
    const view = ecfView(row);
    if (previous) {
      await emit(tx, now, tenantId, 'ecf.duplicate_suspected', { ecf: view, previousEcfId: previous.id, previousEncf: previous.encf });
    }
    return { ecf: view, created: true };
  }).catch(async (e: unknown) => {
    // Several writers at once (PostgreSQL): the one that committed the key, internal number or external e-NCF first wins.
    if (!isUniqueViolation(e)) throw e;
    const winner = await replay(engine.db, tenantId, key, requestHash, internalNumber);
    if (winner) return { ecf: ecfView(winner), created: false };
    if (sequenceMode === 'external') throw conflict('Ecf.EncfAlreadyUsed', `The e-NCF ${doc.encf} was already used by this tenant in ${environment}.`);
    throw e;
  });
}

const recentTwin_ = prepared((db, p: { tenantId: string; print: string; since: string }) =>
  db
    .selectFrom('ecf')
    .select(['id', 'encf', 'issued_at'])
    .where('tenant_id', '=', p.tenantId)
    .where('fingerprint', '=', p.print)
    .where('issued_at', '>=', p.since)
    .orderBy('issued_at', 'desc')
    .limit(1),
);

async function recentTwin(tx: Tx, tenantId: string, print: string, since: Date) {
  return (await recentTwin_(tx, { tenantId, print, since: since.toISOString() }))[0];
}

