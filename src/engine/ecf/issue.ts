import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import { dominicanDate, fromRowInstant, toRowInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError, conflict } from '../errors.js';
import { emit } from '../events/outbox.js';
import { appendJournal } from '../journal/append.js';
import { documentDigest } from '../journal/chain.js';
import { newId } from '../ids.js';
import { money } from '../money.js';
import { credentialsIn, type SigningCredentials } from '../certificates/certificates.js';
import {
  DOCUMENT_SETTINGS,
  documentSettingsOf,
  prepareDocument,
  signEcfOffThread,
  type ComputedDocument,
  type Issuer,
  type NormalizedDocument,
  type Numbering,
  type SignedEcf,
} from '../documents/index.js';
import { signingKey, type SigningKey } from '../signing/xmldsig.js';
import { allocateIn, annulmentOf } from '../sequences/ranges.js';
import { settingsIn } from '../settings/settings.js';
import type { SettingValues } from '../settings/catalogue.js';
import type { Db, Tx } from '../store/database.js';
import { inGroupCommitTwoStep } from '../store/group-commit.js';
import { readTogether } from '../store/read-together.js';
import { isUniqueViolation } from '../store/locking.js';
import { insertRow, insertRowReturning, prepared } from '../store/prepared.js';
import type { EcfTable, TenantsTable } from '../store/schema.js';
import type { DocumentStore, PreparedDocument } from '../store/documents/index.js';
import type { Environment } from '../schema-types.js';
import { emitterProfileIn } from '../tenants/emitter-profile.js';
import type { EmitterProfileView } from '../tenants/schemas.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { sha256Hex, stableStringify } from './canonical-json.js';
import { searchKey } from './search-key.js';
import { contingencyState } from '../submission/contingency.js';
import { stateChangeFields } from '../log/state-change.js';
import { queueSubmission } from '../submission/submit.js';
import { ecfView, selectEcfRows, type EcfRow, type EcfView } from './views.js';
import { qrUrlToStore } from '../signing/row-qr.js';
import { assertEmissionOpen } from '../limits/pause.js';
import { assertUnderMonthlyCap, noteMonthlyEmission } from '../limits/monthly-cap.js';
import { noteOrganizationUsage } from '../limits/usage.js';
import { modifiedHere } from './note-references.js';

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
  /**
   * The tenant's `issuing.wait_for_verdict_seconds`, read with the other
   * settings the e-CF was issued under; 0 when it was not issued now.
   */
  readonly waitForVerdictSeconds: number;
}

type Row = Omit<Selectable<EcfTable>, 'store_key'>;
type ReadRow = EcfRow;

/** Longest Idempotency-Key accepted (after trimming); every key the CLI and folder watch build fits. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

const byKey_ = prepared((db, p: { tenantKey: number; key: string }) =>
  selectEcfRows(db).where('ecf.tenant_key', '=', p.tenantKey).where('ecf.idempotency_key', '=', p.key),
);
const byInternalNumber_ = prepared((db, p: { tenantKey: number; internalNumber: string }) =>
  selectEcfRows(db).where('ecf.tenant_key', '=', p.tenantKey).where('ecf.internal_number', '=', p.internalNumber),
);
const byKey = async (db: Db, tenantId: string, key: string): Promise<ReadRow | undefined> => (await byKey_(db, { tenantKey: await tenantKey(db, tenantId), key }))[0];
const byInternalNumber = async (db: Db, tenantId: string, internalNumber: string): Promise<ReadRow | undefined> =>
  (await byInternalNumber_(db, { tenantKey: await tenantKey(db, tenantId), internalNumber }))[0];

/** An e-CF this request already issued, if any: same key (and same body), or same internalNumber. */
async function replay(db: Db, { tenantId, key, requestHash, internalNumber }: Ask): Promise<ReadRow | undefined> {
  const sameKey = await byKey(db, tenantId, key);
  if (sameKey) {
    if (!requestHash.equals(sameKey.request_hash)) {
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

/** One issuing request, once its key and body are known to be well formed. */
interface Ask {
  readonly tenantId: string;
  readonly key: string;
  /** SHA-256 of the canonical body: 32 raw bytes, as `ecf.request_hash` keeps it (migration 0020). */
  readonly requestHash: Buffer;
  readonly internalNumber: string | null;
  readonly payload: unknown;
  readonly environment: Environment | undefined;
}

/** What an e-CF needs before its number: read from the store and computed from the payload. */
interface Prepared {
  readonly tenant: Selectable<TenantsTable>;
  readonly environment: Environment;
  readonly now: Date;
  readonly sequenceMode: 'managed' | 'external';
  readonly duplicateMode: 'off' | 'observar' | 'rechazar';
  readonly windowMinutes: number;
  readonly lowStockFraction: number;
  readonly monthlyCap: number | null;
  readonly waitForVerdictSeconds: number;
  readonly doc: NormalizedDocument;
  readonly computed: ComputedDocument;
  readonly signingKey: SigningKey;
  readonly issuer: Issuer;
  readonly duringContingency: boolean;
  readonly montoTotal: string;
  readonly print: string;
  readonly toleranceWarning: string | null;
}

/** A unit staged in the shared transaction: a replay, or an e-CF numbered and being signed. */
type Staged =
  | { readonly replayed: IssueResult }
  | {
      readonly ask: Ask;
      readonly p: Prepared;
      readonly id: string;
      readonly numbering: Numbering & { rangeId: string | null };
      readonly previous: Twin | undefined;
      /** Signed, then compressed (both on the thread pool): what `complete` stores. */
      readonly signing: Promise<SignedForStore>;
    };

interface SignedForStore {
  readonly signed: SignedEcf;
  readonly xml: PreparedDocument;
  readonly rfce: PreparedDocument | null;
}

const ISSUE_SETTINGS = [
  ...DOCUMENT_SETTINGS,
  'duplicates.mode',
  'duplicates.window_minutes',
  'sequences.low_stock_fraction',
  'limits.monthly_ecf_cap',
  'issuing.wait_for_verdict_seconds',
] as const;

/**
 * POST /ecf: validates, numbers, signs and stores an e-CF. The number is
 * allocated in the same transaction that stores the signed bytes, so a
 * failure anywhere gives the number back. Idempotent per Idempotency-Key and
 * per internalNumber.
 */
export async function issueEcf(engine: Engine, tenantId: string, request: IssueRequest): Promise<IssueResult> {
  const key = request.idempotencyKey?.trim();
  if (!key) {
    throw new EngineError('validation', 'Ecf.IdempotencyKeyRequired', `Send an Idempotency-Key header of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters; it makes retrying safe.`);
  }
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new EngineError(
      'validation',
      'Ecf.IdempotencyKeyTooLong',
      `The Idempotency-Key has ${key.length} characters; at most ${MAX_IDEMPOTENCY_KEY_LENGTH} are accepted (a UUID or your document number fits).`,
    );
  }
  const ask: Ask = {
    tenantId,
    key,
    requestHash: createHash('sha256').update(stableStringify(request.payload)).digest(),
    internalNumber: internalNumberOf(request.payload),
    payload: request.payload,
    environment: request.environment,
  };
  const read = await readForIssue(engine, ask);
  if ('known' in read) return { ecf: ecfView(read.known), created: false, waitForVerdictSeconds: 0 };
  const p = prepare(engine, ask, read);

  const result = await inGroupCommitTwoStep(engine.db, {
    stage: (tx, earlier: readonly Staged[]) => stage(tx, engine.documents, ask, p, earlier),
    complete: (tx, staged) => complete(tx, engine.documents, staged),
  }).catch(async (e: unknown) => {
    // Several writers at once (PostgreSQL): the one that committed the key, internal number or external e-NCF first wins.
    if (!isUniqueViolation(e)) throw e;
    const winner = await replay(engine.db, ask);
    if (winner) return { ecf: ecfView(winner), created: false, waitForVerdictSeconds: 0 };
    if (p.sequenceMode === 'external') throw conflict('Ecf.EncfAlreadyUsed', `The e-NCF ${p.doc.encf} was already used by this tenant in ${p.environment}.`);
    throw e;
  });
  // Here the group's transaction has committed: a replay (created false) changed nothing.
  if (result.created) {
    const { ecf } = result;
    engine.log.info(
      stateChangeFields({
        subject: 'ecf', tenantId, id: ecf.id, encf: ecf.encf, from: null, to: 'signed',
        extra: { environment: p.environment, type: p.doc.type, ...(p.duringContingency && { contingency: true }) },
      }),
      `ecf ${ecf.encf} new → signed${p.duringContingency ? ' (during contingency)' : ''}`,
    );
  }
  return result;
}

interface IssueReads {
  readonly tenant: Selectable<TenantsTable>;
  readonly profile: EmitterProfileView;
  readonly settings: SettingValues<(typeof ISSUE_SETTINGS)[number]>;
  readonly credentials: SigningCredentials;
  readonly duringContingency: boolean;
}

/** Every read before the transaction, together (see readTogether). */
function readForIssue(engine: Engine, ask: Ask): Promise<{ known: ReadRow } | IssueReads> {
  return readTogether(engine.db, async (db) => {
    const known = await replay(db, ask);
    if (known) return { known };
    const tenant = await requireTenant(db, ask.tenantId);
    return {
      tenant,
      profile: await emitterProfileIn(db, tenant),
      settings: await settingsIn(db, ISSUE_SETTINGS, ask.tenantId),
      credentials: await credentialsIn(engine, db, ask.tenantId),
      duringContingency: (await contingencyState(db)).active,
    };
  });
}

function prepare(engine: Engine, ask: Ask, { tenant, profile, settings, credentials, duringContingency }: IssueReads): Prepared {
  const environment = ask.environment ?? (tenant.default_environment as Environment);
  const now = engine.clock.now();
  const { sequenceMode } = documentSettingsOf(settings);
  const outcome = prepareDocument(ask.payload, { sequenceMode, today: dominicanDate(now) });
  if (!outcome.document) throw new ValidationError(outcome.errors, 'The e-CF payload has invalid fields.');
  const doc = outcome.document;
  const computed = doc.computed;
  const montoTotal = money(computed.totals.montoTotal);
  return {
    tenant,
    environment,
    now,
    sequenceMode,
    duplicateMode: settings['duplicates.mode'],
    windowMinutes: settings['duplicates.window_minutes'],
    lowStockFraction: settings['sequences.low_stock_fraction'],
    // The monthly cap counts production e-CF only.
    monthlyCap: environment === 'production' ? settings['limits.monthly_ecf_cap'] : null,
    waitForVerdictSeconds: settings['issuing.wait_for_verdict_seconds'],
    doc,
    computed,
    signingKey: signingKey(credentials.privateKey, credentials.certificate),
    issuer: {
      rnc: tenant.rnc,
      legalName: tenant.legal_name,
      tradeName: tenant.trade_name,
      address: profile.address,
      municipality: profile.municipality,
      province: profile.province,
      phones: profile.phones,
      email: profile.email,
      economicActivity: profile.economicActivity,
    },
    duringContingency,
    montoTotal,
    print: fingerprint(doc, montoTotal),
    toleranceWarning: outcome.warnings.length ? outcome.warnings.map((w) => `${w.path}: ${w.message}`).join('; ') : null,
  };
}

/** In the shared transaction: the checks that need the latest state, then the number; signing starts. */
async function stage(tx: Tx, documents: DocumentStore, ask: Ask, p: Prepared, earlier: readonly Staged[]): Promise<Staged> {
  const { tenantId } = ask;
  const { now, environment, doc } = p;
  // Another request with this key or internal number may have committed since the first look
  // (on PostgreSQL one may also commit after this look: the unique indexes catch it).
  const raced = await replay(tx, ask);
  if (raced) return { replayed: { ecf: ecfView(raced), created: false, waitForVerdictSeconds: 0 } };

  // A replay above still answers while paused or at the cap: only new e-CF are refused.
  await assertEmissionOpen(tx, now, tenantId, p.tenant.organization_id);
  await assertUnderMonthlyCap(tx, now, tenantId, p.monthlyCap);

  const previous =
    p.duplicateMode === 'off'
      ? undefined
      : (twinAmong(earlier, tenantId, p.print) ?? (await recentTwin(tx, tenantId, p.print, new Date(now.getTime() - p.windowMinutes * 60_000))));
  if (previous && p.duplicateMode === 'rechazar') {
    throw conflict('Ecf.DuplicateSuspected', `This e-CF matches ${previous.encf} issued at ${previous.issued_at} (same buyer, total and lines); change it or turn duplicates.mode to observar.`);
  }

  let numbering: Numbering & { rangeId: string | null };
  if (p.sequenceMode === 'managed') {
    const a = await allocateIn(tx, now, tenantId, environment, doc.type, p.lowStockFraction);
    numbering = { encf: a.encf, sequenceExpiresOn: a.expiresOn, rangeId: a.rangeId };
  } else {
    const used = await tx.selectFrom('ecf').select('id').where('tenant_key', '=', await tenantKey(tx, tenantId)).where('environment', '=', environment).where('encf', '=', doc.encf!).executeTakeFirst();
    if (used) throw conflict('Ecf.EncfAlreadyUsed', `The e-NCF ${doc.encf} was already used by this tenant in ${environment}.`);
    const annulment = await annulmentOf(tx, tenantId, environment, doc.encf!);
    if (annulment) throw conflict('Ecf.EncfAnnulled', `The e-NCF ${doc.encf} was annulled (annulment ${annulment}); an annulled number can never be used.`);
    numbering = { encf: doc.encf!, sequenceExpiresOn: doc.sequenceExpiresOn, rangeId: null };
  }
  // Not awaited here: the RSA work, then the compression, run on the thread pool while the next units stage.
  const signing = signEcfOffThread({ document: doc, computed: p.computed, issuer: p.issuer, numbering, key: p.signingKey, environment, now }).then(
    async (signed): Promise<SignedForStore> => {
      const [xml, rfce] = await Promise.all([documents.prepare(signed.xmlBytes), signed.rfceXml ? documents.prepare(Buffer.from(signed.rfceXml, 'utf8')) : null]);
      return { signed, xml, rfce };
    },
  );
  signing.catch(() => {}); // awaited in complete, unless the units fall back to one by one and sign again
  return { ask, p, id: newId(), numbering, previous, signing };
}

/** A twin staged earlier in this transaction: not stored yet, so recentTwin cannot see it. */
function twinAmong(earlier: readonly Staged[], tenantId: string, print: string): Twin | undefined {
  for (let i = earlier.length - 1; i >= 0; i--) {
    const e = earlier[i]!;
    if ('p' in e && e.ask.tenantId === tenantId && e.p.print === print) return { id: e.id, encf: e.numbering.encf, issued_at: e.p.now.toISOString() };
  }
  return undefined;
}

/** In the shared transaction, after every unit staged: the signed e-CF is stored and queued. */
async function complete(tx: Tx, documents: DocumentStore, staged: Staged): Promise<IssueResult> {
  if ('replayed' in staged) return staged.replayed;
  const { ask, p, numbering, previous } = staged;
  const { tenantId } = ask;
  const { doc, now } = p;
  const { signed, xml, rfce } = await staged.signing;
  const storedXml = await documents.store(tx, xml);
  const storedRfce = rfce ? await documents.store(tx, rfce) : null;
  // The digest and the QR URL are kept only where the document row or the frozen formula cannot give them back (migration 0020).
  const keptDigest = storedXml.sha256?.toString('hex') === signed.xmlSha256 ? storedXml.sha256 : null;
  const row: Row = {
    id: staged.id,
    tenant_key: await tenantKey(tx, tenantId),
    environment: p.environment,
    type: doc.type,
    encf: numbering.encf,
    status: 'signed',
    sequence_expires_on: numbering.sequenceExpiresOn,
    issue_date: doc.issueDate,
    issued_at: toRowInstant(now),
    // Signed at the issue instant: null says so (migration 0022), and signedAtOf reads it back.
    signed_at: null,
    security_code: signed.securityCode,
    qr_url: '',
    submits_rfce: signed.rfceXml ? 1 : 0,
    internal_number: ask.internalNumber,
    tolerance_warning: p.toleranceWarning,
    signed_during_contingency: p.duringContingency ? 1 : 0,
    monto_total: p.montoTotal,
    monto_total_cents: Number(p.computed.totals.montoTotal.times(100).toFixed(0)),
    buyer_rnc: doc.command.buyer?.rnc ?? null,
    buyer_name: doc.command.buyer?.name ?? null,
    buyer_name_key: doc.command.buyer?.name ? searchKey(doc.command.buyer.name) : null,
    document_hash: keptDigest ? '' : signed.xmlSha256,
    idempotency_key: ask.key,
    request_hash: ask.requestHash,
    fingerprint: '',
    sequence_range_id: numbering.rangeId,
    taxauth: null,
    retry: null,
    updated_at: null,
    modifies_encf: modifiedByNote(doc, p.tenant.rnc),
  };
  row.qr_url = qrUrlToStore({ ...row, issuer_rnc: p.tenant.rnc }, signed.qrUrl);
  const ecfKey = Number(await insertRowReturning(tx, 'ecf', row, 'store_key'));
  await insertRow(tx, 'ecf_fingerprints', { tenant_id: tenantId, fingerprint: p.print, issued_at: fromRowInstant(row.issued_at), ecf_id: row.id });
  await insertDocuments_(tx, {
    id: row.id,
    xml: storedXml.blob,
    rfce_xml: storedRfce?.blob ?? null,
    xml_sha256: storedXml.sha256,
    rfce_sha256: storedRfce?.sha256 ?? null,
  });
  const xmlDigest = storedXml.sha256 ?? Buffer.from(signed.xmlSha256, 'hex');
  appendJournal(tx, now, {
    tenantKey: row.tenant_key,
    kind: 'ecf.issued',
    ecfKey,
    digest: documentDigest(xmlDigest, rfce ? (storedRfce?.sha256 ?? createHash('sha256').update(rfce.bytes).digest()) : null),
  });
  await queueSubmission(tx, now, { id: row.id, tenantId, environment: p.environment });
  if (p.environment === 'production') {
    await noteMonthlyEmission(tx, now, tenantId, p.monthlyCap);
    if (p.tenant.organization_id) await noteOrganizationUsage(tx, now, p.tenant.organization_id);
  }
  const view = ecfView({ ...row, issuer_rnc: p.tenant.rnc, xml_sha256: keptDigest });
  if (previous) {
    await emit(tx, now, tenantId, 'ecf.duplicate_suspected', { ecf: view, previousEcfId: previous.id, previousEncf: previous.encf });
  }
  return { ecf: view, created: true, waitForVerdictSeconds: p.waitForVerdictSeconds };
}

/** `ecf.modifies_encf` of the e-CF issued now: a note's reference, as note-references.ts modifiedHere keeps it. */
function modifiedByNote(doc: NormalizedDocument, issuerRnc: string): string | null {
  if (doc.type !== 33 && doc.type !== 34) return null;
  const r = doc.command.reference;
  return modifiedHere({ modified: r?.modifiedNcf, otherIssuerRnc: r?.otherIssuerRnc, issuerRnc });
}

/** The documents row points at the e-CF's store key (migration 0022), which the row just inserted was given. */
const insertDocuments_ = prepared((db, p: { id: string; xml: Buffer; rfce_xml: Buffer | null; xml_sha256: Buffer | null; rfce_sha256: Buffer | null }) =>
  db.insertInto('ecf_documents').values({
    ecf_key: (eb) => eb.selectFrom('ecf').select('ecf.store_key').where('ecf.id', '=', p.id),
    xml: p.xml,
    rfce_xml: p.rfce_xml,
    xml_sha256: p.xml_sha256,
    rfce_sha256: p.rfce_sha256,
  }),
);

const recentTwin_ = prepared((db, p: { tenantId: string; print: string; since: string }) =>
  db
    .selectFrom('ecf_fingerprints as f')
    .innerJoin('ecf', 'ecf.id', 'f.ecf_id')
    .select(['ecf.id', 'ecf.encf', 'f.issued_at'])
    .where('f.tenant_id', '=', p.tenantId)
    .where('f.fingerprint', '=', p.print)
    .where('f.issued_at', '>=', p.since)
    .orderBy('f.issued_at', 'desc')
    .limit(1),
);

interface Twin {
  readonly id: string;
  readonly encf: string;
  readonly issued_at: string;
}

async function recentTwin(tx: Tx, tenantId: string, print: string, since: Date): Promise<Twin | undefined> {
  return (await recentTwin_(tx, { tenantId, print, since: since.toISOString() }))[0];
}

