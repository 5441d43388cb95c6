import type { Generated } from 'kysely';

/**
 * Row shapes of the SQLite file. Instants are stored as UTC ISO text with
 * milliseconds (sorts as text); JSON columns hold serialised text.
 */

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: string;
  max_tenants: number;
  monthly_ecf_quota: number;
  max_members: number;
  created_at: string;
  updated_at: string | null;
}

export interface OrganizationMembersTable {
  id: string;
  organization_id: string;
  name: string;
  email: string | null;
  role: string;
  created_at: string;
}

export interface TenantsTable {
  id: string;
  organization_id: string | null;
  rnc: string;
  legal_name: string;
  trade_name: string | null;
  default_environment: string;
  created_at: string;
  updated_at: string | null;
  /** The tenant's small key in `ecf` (migration 0021): assigned once at creation, never reused or changed. */
  store_key: number;
}

export interface EmitterProfilesTable {
  id: string;
  tenant_id: string;
  address: string;
  municipality: string | null;
  province: string | null;
  phones: string;
  email: string | null;
  economic_activity: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  prefix: string;
  key_hash: string;
  role: string;
  tenant_id: string | null;
  organization_id: string | null;
  member_id: string | null;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface SettingsTable {
  scope: string;
  key: string;
  value: string;
  updated_at: string;
}

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  tenant_id: string | null;
  type: string;
  api_version: number;
  created_at: string;
  data: string;
  fact_key: string | null;
}

export interface WorkTable {
  id: string;
  kind: string;
  tenant_id: string | null;
  ref: string | null;
  /** `group|tenant|class`: claims go round-robin over lanes; the group's concurrency is bounded. */
  lane: string | null;
  payload: string;
  due_at: string;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface CertificatesTable {
  id: string;
  tenant_id: string;
  subject: string;
  subject_cn: string | null;
  subject_serial_number: string | null;
  holder_id: string | null;
  issuer: string;
  serial_number: string;
  fingerprint_sha256: string;
  key_bits: number;
  not_before: string;
  not_after: string;
  secret_store: string;
  secret_ref: string;
  created_at: string;
  revoked_at: string | null;
}

export interface SequenceRangesTable {
  id: string;
  tenant_id: string;
  environment: string;
  type: number;
  series: string;
  range_from: number;
  range_to: number;
  next: number;
  expires_on: string | null;
  active: number;
  created_at: string;
  /** Annulled numbers above `next`; the allocator skips them (0008-annulments). */
  annulled_ahead: number;
  /** Set by a restore until the next number is known unused; the range hands out nothing meanwhile (0016). */
  unverified_since: string | null;
}

export interface EcfTable {
  /** The e-CF's small integer key in the store (migration 0022): ecf_documents and ecf_attempts point at it. Never shown. */
  store_key: Generated<number>;
  id: string;
  /** The tenant's `store_key` (migration 0021), found from its id by tenants/lookup.ts `tenantKey`. */
  tenant_key: number;
  environment: string;
  type: number;
  encf: string;
  status: string;
  sequence_expires_on: string | null;
  issue_date: string;
  /** Milliseconds since the epoch (migration 0022): read and write with clock.ts toRowInstant/fromRowInstant. */
  issued_at: number;
  /** Null when it equals issued_at (every e-CF signs at its issue instant); read it with signedAtOf. */
  signed_at: number | null;
  security_code: string;
  /** Empty when signing/row-qr.ts gives the URL back from the row (migration 0020); read it with qrUrlOf. */
  qr_url: string;
  submits_rfce: number;
  internal_number: string | null;
  tolerance_warning: string | null;
  signed_during_contingency: number;
  monto_total: string;
  monto_total_cents: number;
  buyer_rnc: string | null;
  buyer_name: string | null;
  /** searchKey(buyer_name): what a search by name compares (migration 0006). */
  buyer_name_key: string | null;
  /** Hex SHA-256 of the signed XML; empty when ecf_documents.xml_sha256 holds it (migration 0020): read it with documentHashOf. */
  document_hash: string;
  idempotency_key: string;
  /** Raw SHA-256 (32 bytes) of the request's canonical body (hex text before migration 0020). */
  request_hash: Buffer;
  /** Empty since migration 0018: duplicate detection reads `ecf_fingerprints`. */
  fingerprint: string;
  sequence_range_id: string | null;
  taxauth: string | null;
  retry: string | null;
  /** Milliseconds since the epoch (migration 0022). */
  updated_at: number | null;
  /** A debit or credit note's NCFModificado (migration 0029); null on every other e-CF. */
  modifies_encf: Generated<string | null>;
}

/**
 * What duplicate detection compares (migration 0018), for the e-CF of the
 * last `duplicates.window_minutes` (at most seven days): not a record, so the
 * retention job may delete rows older than seven days.
 */
export interface EcfFingerprintsTable {
  tenant_id: string;
  fingerprint: string;
  issued_at: string;
  ecf_id: string;
}

export interface EcfDocumentsTable {
  /** ecf.store_key (migration 0022). */
  ecf_key: number;
  /** The signed e-CF (store/documents: compressed, or raw in rows older than migration 0017). */
  xml: Buffer;
  rfce_xml: Buffer | null;
  /** Raw SHA-256 of the signed bytes (migration 0017); null in older rows, whose XML ecf.document_hash checks. */
  xml_sha256: Buffer | null;
  rfce_sha256: Buffer | null;
}

/** The signers' certificate texts, cut out of stored documents and kept once (migration 0017). Never changed. */
export interface DocumentCertificatesTable {
  id: Generated<number>;
  sha256: Buffer;
  /** The bytes between the X509Certificate tags, exactly. */
  certificate: Buffer;
}

/** Keyed by (ecf_key, attempt): ecf.store_key since migration 0022; 0020 dropped the unshown UUID `id`. */
export interface EcfAttemptsTable {
  ecf_key: number;
  attempt: number;
  outcome: string;
  track_id: string | null;
  status_code: number | null;
  status_text: string | null;
  sequence_used: number | null;
  messages: string;
  retry_decision: string | null;
  /** Raw SHA-256 of the bytes sent; null when they were the e-CF's signed XML (always, since migration 0020). */
  xml_sha256: Buffer | null;
  /** Milliseconds since the epoch (migration 0022). */
  recorded_at: number;
}

export interface AnnulmentsTable {
  id: string;
  tenant_id: string;
  environment: string;
  reason: string;
  /** sending, voided, rejected or failed. */
  status: string;
  total_count: number;
  /** The signed ANECF: these bytes are sent on every attempt. */
  xml: Buffer;
  xml_sha256: string;
  taxauth_code: string | null;
  /** JSON array of strings. */
  taxauth_messages: string;
  last_error: string | null;
  attempts: number;
  /** While `sending`: when the send in flight is certainly over (a process that died leaves it behind). */
  sending_until: string | null;
  submitted_at: string | null;
  voided_at: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface AnnulmentLinesTable {
  annulment_id: string;
  position: number;
  range_id: string;
  type: number;
  series: string;
  range_from: number;
  range_to: number;
}

export interface PlatformStateTable {
  key: string;
  value: string;
  updated_at: string;
}

/** Maintained by triggers on `ecf` (migration 0006): e-CF per tenant, environment, type and status. */
export interface EcfCountsTable {
  tenant_id: string;
  environment: string;
  type: number;
  status: string;
  n: number;
}

/**
 * Maintained by triggers on `ecf` (migration 0018): e-CF per tenant, Dominican
 * issue day (`yyyy-MM-dd`), environment, type, status and retry pending (0/1).
 */
export interface EcfDayCountsTable {
  tenant_id: string;
  day: string;
  environment: string;
  type: number;
  status: string;
  retrying: number;
  n: number;
}

/**
 * Maintained by triggers on `ecf` (migration 0018): e-CF per tenant, amount
 * band (ecf/amount-band.ts), environment, type and status.
 */
export interface EcfAmountCountsTable {
  tenant_id: string;
  band: number;
  environment: string;
  type: number;
  status: string;
  n: number;
}

/** E-CF per tenant, Dominican issue day and amount band, kept by triggers (migration 0022): the list's From/To with an amount bound. */
export interface EcfDayAmountCountsTable {
  tenant_id: string;
  day: string;
  band: number;
  n: number;
}

/** E-CF per tenant and buyer name search key ('' without a name), kept by triggers (migration 0025): a Search by name counted without reading its matches. */
export interface EcfNameCountsTable {
  tenant_key: number;
  name_key: string;
  n: number;
}

/** E-CF per tenant and fine amount band (ecf/amount-band.ts, three leading digits), kept by triggers (migration 0025). */
export interface EcfFineAmountCountsTable {
  tenant_key: number;
  band: number;
  n: number;
}

/** E-CF per tenant, environment, type, status and retry pending, kept by triggers (migration 0022): Retrying without From/To. */
export interface EcfRetryCountsTable {
  tenant_id: string;
  environment: string;
  type: number;
  status: string;
  retrying: number;
  n: number;
}

export interface WebhookEndpointsTable {
  id: string;
  tenant_id: string;
  url: string;
  description: string | null;
  /** JSON array of subscription entries: exact types, `category.*` or `*`. */
  events: string;
  enabled: number;
  consecutive_failures: number;
  disabled_reason: string | null;
  disabled_at: string | null;
  secret_store: string;
  secret_ref: string;
  created_at: string;
  updated_at: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  tenant_id: string;
  event_id: string;
  event_type: string;
  /** pending, delivered or dead */
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** One emission pause of a tenant or an organization (migration 0009). */
export interface EmissionPausesTable {
  /** tenant or organization */
  scope: string;
  subject_id: string;
  reason: string | null;
  /** The pause ends by itself at this instant; null: until resumed. */
  until: string | null;
  /** operator or tenant: who may lift it. */
  set_by: string;
  changed_by: string;
  paused_at: string;
}

/** Maintained by triggers on `ecf` (migration 0009): e-CF per tenant, environment and Dominican month (yyyy-MM). */
export interface EcfMonthlyCountsTable {
  tenant_id: string;
  environment: string;
  period: string;
  n: number;
}

export interface TenantAlertStateTable {
  tenant_id: string;
  spike_alerted_at: string | null;
}

/** Peaks of an organization's billing period (a Dominican calendar month). */
export interface OrganizationUsageTable {
  organization_id: string;
  period: string;
  peak_tenants: number;
  peak_members: number;
  closed_at: string | null;
}

/** An e-CF another issuer sent to the tenant (migration 0010). */
export interface ReceivedEcfTable {
  id: string;
  tenant_id: string;
  environment: string;
  /** received or not_received: the ARECF's Estado 0 or 1. */
  status: string;
  /** CodigoMotivoNoRecibido 1–4 when not received. */
  reason_code: number | null;
  reason: string | null;
  issuer_rnc: string;
  issuer_name: string | null;
  buyer_rnc: string | null;
  encf: string;
  type: number | null;
  /** YYYY-MM-DD */
  issue_date: string | null;
  monto_total: string | null;
  security_code: string | null;
  file_name: string | null;
  /** The bytes as they arrived. */
  xml: Buffer;
  xml_sha256: string;
  /** The signed ARECF we answered with, as sent. */
  arecf_xml: Buffer;
  /** Raw SHA-256 of the ARECF (migration 0017); null in older rows. */
  arecf_sha256: Buffer | null;
  received_at: string;
}

/** The tenant's commercial decision over a received e-CF: the signed ACECF and its two deliveries. */
export interface ReceivedEcfApprovalsTable {
  id: string;
  received_ecf_id: string;
  tenant_id: string;
  /** accepted or rejected */
  decision: string;
  rejection_reason: string | null;
  xml: Buffer;
  xml_sha256: string;
  decided_at: string;
  /** JSON of one delivery of the ACECF: its schema is reception/delivery-state.ts (ApprovalDeliveryColumn). */
  issuer_delivery: string;
  taxauth_delivery: string;
}

/** An ACECF an external buyer sent over one of the tenant's e-CF. */
export interface InboundApprovalsTable {
  id: string;
  tenant_id: string;
  ecf_id: string;
  encf: string;
  buyer_rnc: string;
  decision: string;
  rejection_reason: string | null;
  /** FechaHoraAprobacionComercial as written. */
  approved_at_text: string;
  xml: Buffer;
  xml_sha256: string;
  received_at: string;
}

/** Sealed (AES-256-GCM) secrets of the encrypted store on PostgreSQL (migration 0012); the file name of the sealed body is the key. */
export interface SealedSecretsTable {
  name: string;
  body: string;
  updated_at: string;
}

/** A tenant's certification as an electronic issuer (migration 0014): `pasos` is JSON, Paso number → its state. */
export interface CertificationsTable {
  tenant_id: string;
  pasos: string;
  started_at: string;
  updated_at: string;
}

/** One test case of a certification workbook (migration 0014). */
export interface CertificationCasesTable {
  id: string;
  tenant_id: string;
  /** 2 (e-CF and RFCE) or 3 (commercial approvals). */
  paso: number;
  /** Which import of the workbook: a new one after a reset is the next. */
  generation: number;
  sheet: string;
  /** The row in the sheet, as Excel numbers it (the header is row 1). */
  row_number: number;
  case_id: string;
  /** The document kind sent: ecf31…ecf47, rfce or acecf. */
  kind: string;
  encf: string;
  /** For notes (33, 34): the e-NCF they modify, sent only once it is accepted. */
  modifies_encf: string | null;
  /** JSON: the row's cells that are not `#e`, header (as written) → text. */
  cells: string;
  state: string;
  /** The signed document, once prepared: these bytes are sent and kept. */
  xml: Buffer | null;
  /** Raw SHA-256 of the signed document (migration 0017); null in older rows. */
  xml_sha256: Buffer | null;
  security_code: string | null;
  track_id: string | null;
  /** JSON: the authority's messages on the last verdict. */
  messages: string | null;
  sent_at: string | null;
  verdict_at: string | null;
  updated_at: string;
}

/** A seed or bearer token of a tenant's B2B receiver (migration 0015): only its SHA-256 (hex) is kept. */
export interface ReceptionCredentialsTable {
  value_hash: string;
  tenant_id: string;
  expires_at: string;
  created_at: string;
}

/** One entry of a tenant's hash-chained journal (migration 0026; journal/chain.ts says what `link` covers). */
export interface JournalTable {
  tenant_key: number;
  seq: number;
  /** Milliseconds since the epoch. */
  at: number;
  /** journal/kinds.ts */
  kind: number;
  ecf_key: number | null;
  ref: string | null;
  digest: Buffer | null;
  data: string | null;
  /** The first 8 bytes of the entry's chain hash. */
  link: Buffer;
}

/** The last entry of each tenant's journal, with its full hash: the row appends lock. */
export interface JournalHeadsTable {
  tenant_key: number;
  seq: number;
  hash: Buffer;
}

/** A period export asked for over the API (migration 0027): its ZIP is exports/<id>.zip in the data dir. */
export interface ExportsTable {
  id: string;
  tenant_id: string;
  /** test, cert or production: an export is of one environment. */
  environment: string;
  /** Dominican days, both included. */
  period_from: string;
  period_to: string;
  /** pending, running, ready or failed */
  status: string;
  /** Why it failed. */
  reason: string | null;
  file_bytes: number | null;
  created_at: string;
  finished_at: string | null;
}

/** A signed-in browser of the web console (migration 0028). Instants are UTC ISO text. */
export interface ConsoleSessionsTable {
  /** SHA-256 (hex) of the random token the cookie holds. */
  id_hash: string;
  key_id: string;
  tenant_id: string;
  csrf: string;
  created_at: string;
  /** Last use; slid at most once a minute: idle expiry counts from it. */
  seen_at: string;
  /** The absolute expiry. */
  expires_at: string;
}

export interface Database {
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  tenants: TenantsTable;
  emitter_profiles: EmitterProfilesTable;
  api_keys: ApiKeysTable;
  settings: SettingsTable;
  events: EventsTable;
  work: WorkTable;
  certificates: CertificatesTable;
  sequence_ranges: SequenceRangesTable;
  ecf: EcfTable;
  ecf_documents: EcfDocumentsTable;
  document_certificates: DocumentCertificatesTable;
  ecf_attempts: EcfAttemptsTable;
  platform_state: PlatformStateTable;
  ecf_counts: EcfCountsTable;
  ecf_day_counts: EcfDayCountsTable;
  ecf_amount_counts: EcfAmountCountsTable;
  ecf_day_amount_counts: EcfDayAmountCountsTable;
  ecf_retry_counts: EcfRetryCountsTable;
  ecf_name_counts: EcfNameCountsTable;
  ecf_fine_amount_counts: EcfFineAmountCountsTable;
  ecf_fingerprints: EcfFingerprintsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  annulments: AnnulmentsTable;
  annulment_lines: AnnulmentLinesTable;
  emission_pauses: EmissionPausesTable;
  ecf_monthly_counts: EcfMonthlyCountsTable;
  tenant_alert_state: TenantAlertStateTable;
  organization_usage: OrganizationUsageTable;
  received_ecf: ReceivedEcfTable;
  received_ecf_approvals: ReceivedEcfApprovalsTable;
  inbound_approvals: InboundApprovalsTable;
  sealed_secrets: SealedSecretsTable;
  certifications: CertificationsTable;
  certification_cases: CertificationCasesTable;
  reception_seeds: ReceptionCredentialsTable;
  reception_tokens: ReceptionCredentialsTable;
  journal: JournalTable;
  journal_heads: JournalHeadsTable;
  exports: ExportsTable;
  console_sessions: ConsoleSessionsTable;
}
