import type { Database } from '../store/schema.js';

/**
 * Every table of the store, and what the appliance may do with its rows over
 * time. One place: a table added to the store (schema.ts, a migration) is
 * classified here, and until it is, tsc fails (the `satisfies` below) and so
 * does test/engine/retention/inventory.test.ts, which reads the tables from
 * the database's own catalogue.
 *
 * - `record`: what the taxpayer must keep for ten years (Ley 11-92 art. 50 h)
 *   and what says whose it is: never deleted by the appliance.
 * - `kept`: not a record but current configuration or working state, as
 *   large as what exists now (tenants, keys, endpoints, pending work);
 *   changed or removed only by the operation that owns it, never by age.
 * - `cleaned`: rows that are neither, removed by the store-clean job once
 *   older than their setting (rules.ts names the rule for each).
 */
export type TableClass = 'record' | 'kept' | 'cleaned';

export interface TableRetention {
  readonly class: TableClass;
  readonly why: string;
}

const record = (why: string) => ({ class: 'record', why }) as const;
const kept = (why: string) => ({ class: 'kept', why }) as const;
const cleaned = (why: string) => ({ class: 'cleaned', why }) as const;

/** kysely's own bookkeeping of the migrations applied. */
type MigrationTables = 'kysely_migration' | 'kysely_migration_lock';

export const STORE_TABLES = {
  ecf: record('the issued e-CF'),
  ecf_documents: record('the signed XML of each e-CF (and its RFCE), the bytes sent'),
  document_certificates: record('the certificate text cut out of stored documents, kept once: reading any of them needs it'),
  ecf_attempts: record("every send to the authority and its answer, resends included"),
  annulments: record('the signed ANECF and its outcome'),
  annulment_lines: record('the ranges an ANECF annulled'),
  received_ecf: record('e-CF other issuers sent, as they arrived, and the ARECF answered'),
  received_ecf_approvals: record('the ACECF the tenant signed over a received e-CF, and its deliveries'),
  inbound_approvals: record("the ACECF buyers sent over the tenant's e-CF"),
  sequence_ranges: record('the e-NCF ranges the authority authorised, and how far each was used'),
  certificates: record('which certificate signed: its subject, serial and validity (the key itself is a secret)'),
  certifications: record("the tenant's certification as an electronic issuer, step by step"),
  certification_cases: record('each certification test case and the signed document sent for it'),
  tenants: record('the taxpayers the records belong to'),
  organizations: record('who the tenants belong to'),
  organization_usage: record("each billing period's peaks, once closed"),
  journal: record("each tenant's hash-chained journal of changes of record, closings included"),
  journal_heads: record("the last entry of each tenant's journal and its full hash"),

  organization_members: kept('the people of an organization'),
  emitter_profiles: kept("the issuer's address and contact, as it is now"),
  api_keys: kept('keys, revoked ones marked, not removed'),
  settings: kept('the settings set'),
  platform_state: kept('a few named values (authority status, contingency, runs in progress)'),
  emission_pauses: kept('one row per paused tenant or organization, removed when resumed'),
  tenant_alert_state: kept('one row per tenant'),
  webhook_endpoints: kept("the tenant's endpoints, removed when the tenant deletes one"),
  sealed_secrets: kept('sealed secrets of certificates and endpoints, removed with what they belong to'),
  work: kept('the durable queue: an item is deleted by the queue as its work finishes, so only pending or in-flight work is here'),
  ecf_counts: kept('counters kept by triggers on ecf, which is never deleted'),
  ecf_monthly_counts: kept('counters kept by triggers on ecf, which is never deleted'),
  ecf_day_counts: kept("counters kept by triggers on ecf, which is never deleted: the list's From/To counts"),
  ecf_amount_counts: kept("counters kept by triggers on ecf, which is never deleted: the list's amount counts"),
  ecf_retry_counts: kept("counters kept by triggers on ecf, which is never deleted: the list's Retrying counts"),
  ecf_day_amount_counts: kept("counters kept by triggers on ecf, which is never deleted: the list's amount counts with From/To"),
  ecf_name_counts: kept("counters kept by triggers on ecf, which is never deleted: the list's buyer name search counts"),
  ecf_fine_amount_counts: kept("counters kept by triggers on ecf, which is never deleted: the list's amount counts by fine band"),
  kysely_migration: kept('the migrations applied'),
  kysely_migration_lock: kept('the migration lock'),

  webhook_deliveries: cleaned('the delivery log: delivered and dead deliveries go after their time; pending ones stay'),
  events: cleaned('events go after their time once no delivery names them; those remembering a fact told once stay'),
  reception_seeds: cleaned("the B2B receiver's seeds go once expired"),
  reception_tokens: cleaned("the B2B receiver's bearer tokens go once expired"),
  exports: cleaned('period exports asked for over the API: a finished one goes, row and ZIP, after exports.keep_days'),
  console_sessions: cleaned("the web console's sessions go once expired (idle 8 h or 12 h after sign-in)"),
  ecf_fingerprints: cleaned('what duplicate detection compares, which looks back 7 days at most: older ones go'),
} satisfies Record<keyof Database | MigrationTables, TableRetention>;

export type StoreTable = keyof typeof STORE_TABLES;
