import { Type, type Static } from '@sinclair/typebox';
import type { Kysely, NotNull, Selectable } from 'kysely';
import { fromRowInstant, toDominicanIso } from '../clock.js';
import { qrUrlOf, signedAtOf } from '../signing/row-qr.js';
import type { Database, EcfTable } from '../store/schema.js';
import { EnvironmentSchema, Nullable, Uuid } from '../schema-types.js';
import { checkJsonColumn, parseJsonColumn } from '../json-column.js';
import type { Environment } from '../schema-types.js';

const DateTime = Type.String({ format: 'date-time' });

export const TaxauthView = Type.Object({
  trackId: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  statusCode: Type.Optional(Type.Integer()),
  sequenceUsed: Type.Optional(Type.Boolean()),
  messages: Type.Optional(Type.Array(Type.Object({ code: Type.Integer(), value: Type.String() }))),
  submittedAt: Type.Optional(DateTime),
  receivedAt: Type.Optional(DateTime),
  processedAt: Type.Optional(DateTime),
});

export type TaxauthView = Static<typeof TaxauthView>;

/**
 * `ecf.taxauth` as stored, after its short keys are expanded: the view's fields,
 * with instants as any text (the authority's own are kept as they came).
 */
const TaxauthColumn = Type.Object({
  trackId: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  statusCode: Type.Optional(Type.Integer()),
  sequenceUsed: Type.Optional(Type.Boolean()),
  messages: Type.Optional(Type.Array(Type.Object({ code: Type.Integer(), value: Type.String() }))),
  submittedAt: Type.Optional(Type.String()),
  receivedAt: Type.Optional(Type.String()),
  processedAt: Type.Optional(Type.String()),
});

/**
 * `ecf.taxauth` in its short form (migration 0020): the same JSON object,
 * keys in the same order, each key one letter, and an instant written as
 * its milliseconds when that gives back the exact ISO text; anything else
 * as it came. Rows written before 0020 (long keys) read the same.
 */
const TAXAUTH_KEYS: Record<string, string> = {
  trackId: 't', status: 's', statusCode: 'c', sequenceUsed: 'u', messages: 'm', submittedAt: 'b', receivedAt: 'r', processedAt: 'p',
};
const TAXAUTH_NAMES: Record<string, string> = Object.fromEntries(Object.entries(TAXAUTH_KEYS).map(([k, v]) => [v, k]));
const INSTANTS = new Set(['submittedAt', 'receivedAt', 'processedAt']);
const asMillis = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const ms = Date.parse(v);
  return Number.isFinite(ms) && new Date(ms).toISOString() === v ? ms : v;
};

export function taxauthToStore(t: TaxauthView): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(t)) out[TAXAUTH_KEYS[k] ?? k] = INSTANTS.has(k) ? asMillis(v) : v;
  return JSON.stringify(out);
}

export function taxauthOf(stored: string | null): TaxauthView | null {
  if (!stored) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parseJsonColumn(StoredObject, stored, 'ecf.taxauth'))) {
    const name = TAXAUTH_NAMES[k] ?? k;
    out[name] = INSTANTS.has(name) && typeof v === 'number' ? new Date(v).toISOString() : v;
  }
  return checkJsonColumn(TaxauthColumn, out, 'ecf.taxauth');
}

export const RetryView = Type.Object({ count: Type.Integer(), max: Type.Integer(), nextAttemptAt: Nullable(DateTime) });

/** Any JSON object: `ecf.taxauth` before its short keys are expanded. */
const StoredObject = Type.Record(Type.String(), Type.Unknown());

/** `ecf.retry` as stored (written by submission's retry ladder; the instant is ours, an ISO text). */
export const RetryColumn = Type.Object({ count: Type.Integer(), max: Type.Integer(), nextAttemptAt: Nullable(Type.String()) });

/** The retry state of a row, checked against its column's schema. */
export const retryOf = (stored: string | null): Static<typeof RetryColumn> | null => (stored ? parseJsonColumn(RetryColumn, stored, 'ecf.retry') : null);

export const EcfLinks = Type.Object({
  self: Type.String(),
  xml: Type.String(),
  rfceXml: Type.Optional(Type.String()),
  representation: Type.String(),
});

/** The states an e-CF can be in (the contract's status values). */
export const ECF_STATUSES = ['signed', 'accepted', 'accepted_conditional', 'rejected', 'review', 'failed'] as const;
export type EcfStatus = (typeof ECF_STATUSES)[number];

export const EcfStatusSchema = (options: { description?: string } = {}) =>
  Type.Union(
    ECF_STATUSES.map((s) => Type.Literal(s)),
    { errorMessage: `must be one of ${ECF_STATUSES.join(', ')}`, ...options },
  );

/** `EcfDto` of the contract. */
export const EcfView = Type.Object({
  id: Uuid(),
  status: Type.String({ description: 'signed, accepted, accepted_conditional, rejected, review or failed' }),
  encf: Type.String(),
  type: Type.Integer(),
  environment: EnvironmentSchema,
  sequenceExpiresOn: Nullable(Type.String({ format: 'date' })),
  issueDate: Type.String({ format: 'date' }),
  issuedAt: DateTime,
  signedAt: DateTime,
  securityCode: Type.String(),
  qrUrl: Type.String(),
  submitsRfce: Type.Boolean(),
  internalNumber: Nullable(Type.String()),
  toleranceWarning: Nullable(Type.String()),
  signedDuringContingency: Type.Boolean(),
  montoTotal: Type.Number(),
  buyerRnc: Nullable(Type.String()),
  buyerName: Nullable(Type.String()),
  documentHash: Type.String({ description: 'SHA-256 (hex) of the signed XML bytes' }),
  taxauth: Nullable(TaxauthView),
  retry: Nullable(RetryView),
  links: EcfLinks,
});
export type EcfView = Static<typeof EcfView>;

/** `EcfSummaryDto`: what the list shows of each e-CF. */
export const EcfSummary = Type.Object({
  id: Uuid(),
  status: Type.String(),
  encf: Type.String(),
  type: Type.Integer(),
  environment: EnvironmentSchema,
  issueDate: Type.String({ format: 'date' }),
  issuedAt: DateTime,
  montoTotal: Type.Number(),
  buyerRnc: Nullable(Type.String()),
  buyerName: Nullable(Type.String()),
  internalNumber: Nullable(Type.String()),
  securityCode: Type.String(),
  links: Type.Object({ self: Type.String() }),
});
export type EcfSummary = Static<typeof EcfSummary>;

export const links = (row: Pick<Selectable<EcfTable>, 'id' | 'submits_rfce'>) => ({
  self: `/api/v1/ecf/${row.id}`,
  xml: `/api/v1/ecf/${row.id}/xml`,
  ...(row.submits_rfce === 1 && { rfceXml: `/api/v1/ecf/${row.id}/xml?rfce=true` }),
  representation: `/api/v1/ecf/${row.id}/representation`,
});

/**
 * An `ecf` row as the views read it (migration 0020): with its tenant's RNC,
 * from which an empty `qr_url` is rebuilt, and its document's raw SHA-256,
 * which an empty `document_hash` stands for.
 */
/** The store key (migration 0022) is the store's own: a view never reads it, and a row about to be inserted has none yet. */
export type EcfRow = Omit<Selectable<EcfTable>, 'store_key'> & { readonly issuer_rnc: string; readonly xml_sha256: Buffer | null };

/**
 * `ecf` rows with what EcfRow adds, each by a correlated lookup on its primary key: SQLite ran
 * the same as joins several times slower (measured on the big-store bench's file).
 */
export const selectEcfRows = (db: Kysely<Database>) =>
  db
    .selectFrom('ecf')
    .selectAll('ecf')
    .select((eb) => [
      eb.selectFrom('tenants').select('tenants.rnc').whereRef('tenants.store_key', '=', 'ecf.tenant_key').as('issuer_rnc'),
      eb.selectFrom('ecf_documents').select('ecf_documents.xml_sha256').whereRef('ecf_documents.ecf_key', '=', 'ecf.store_key').as('xml_sha256'),
    ])
    // Every e-CF has its tenant (a foreign key).
    .$narrowType<{ issuer_rnc: NotNull }>();

/**
 * The hex SHA-256 of an e-CF's signed XML: `ecf.document_hash`, or when that
 * is empty (migration 0020) the document row's own digest of the same bytes.
 */
export const documentHashOf = (r: { readonly document_hash: string; readonly xml_sha256: Buffer | null }): string =>
  r.document_hash || r.xml_sha256!.toString('hex');

export function ecfView(r: EcfRow): EcfView {
  return {
    id: r.id,
    status: r.status,
    encf: r.encf,
    type: r.type,
    environment: r.environment as Environment,
    sequenceExpiresOn: r.sequence_expires_on,
    issueDate: r.issue_date,
    issuedAt: toDominicanIso(fromRowInstant(r.issued_at)),
    signedAt: toDominicanIso(fromRowInstant(signedAtOf(r))),
    securityCode: r.security_code,
    qrUrl: qrUrlOf(r),
    submitsRfce: r.submits_rfce === 1,
    internalNumber: r.internal_number,
    toleranceWarning: r.tolerance_warning,
    signedDuringContingency: r.signed_during_contingency === 1,
    montoTotal: Number(r.monto_total),
    buyerRnc: r.buyer_rnc,
    buyerName: r.buyer_name,
    documentHash: documentHashOf(r),
    taxauth: taxauthOf(r.taxauth),
    retry: retryOf(r.retry),
    links: links(r),
  };
}

export const SUMMARY_COLUMNS = [
  'id', 'status', 'encf', 'type', 'environment', 'issue_date', 'issued_at', 'monto_total', 'buyer_rnc', 'buyer_name', 'internal_number', 'security_code',
] as const;

export function summaryView(r: Pick<Selectable<EcfTable>, (typeof SUMMARY_COLUMNS)[number]>): EcfSummary {
  return {
    id: r.id,
    status: r.status,
    encf: r.encf,
    type: r.type,
    environment: r.environment as Environment,
    issueDate: r.issue_date,
    issuedAt: toDominicanIso(fromRowInstant(r.issued_at)),
    montoTotal: Number(r.monto_total),
    buyerRnc: r.buyer_rnc,
    buyerName: r.buyer_name,
    internalNumber: r.internal_number,
    securityCode: r.security_code,
    links: { self: `/api/v1/ecf/${r.id}` },
  };
}
