import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { isSqlite, rowKey, withoutRowid } from './ddl.js';

/**
 * The bytes of the `ecf` row and of `ecf_attempts` that repeat something
 * kept elsewhere (measured with bench/list-million.bench.ts, docs/performance.md):
 *
 * - `qr_url` (about 167 bytes) is left empty when the timbre formula, fed the
 *   row's own fields and its tenant's RNC, gives the URL back exactly; the
 *   formula that rebuilds it (signing/row-qr.ts, copied below) is frozen, so a
 *   URL that another formula made stays stored whole and never changes.
 * - `document_hash` (64 hex characters) is left empty when
 *   `ecf_documents.xml_sha256` holds the same digest; rows written without
 *   compression keep theirs.
 * - `request_hash` keeps the SHA-256 as its 32 raw bytes.
 * - `taxauth` (about 230 bytes of JSON) keeps the same object with one-letter
 *   keys in the same order and its instants as milliseconds where those give
 *   the ISO text back (ecf/views.ts `taxauthOf`, copied below).
 * - `ecf_attempts` loses its UUID `id` (shown nowhere: an attempt is its
 *   e-CF and its number) and with it one of its two unique indexes; it is
 *   keyed by (ecf_id, attempt), on SQLite in that key's own b-tree. Its
 *   `xml_sha256` is null when the bytes sent were the e-CF's signed XML
 *   (what every attempt sends), raw bytes otherwise.
 *
 * Empty text rather than null: on SQLite both cost one byte of the record's
 * header, and the NOT NULL of those columns could only go by rebuilding the
 * `ecf` table with its indexes and triggers.
 */
const BATCH = 2000;

const hexOf = (db: Kysely<unknown>, column: string) => (isSqlite(db) ? `lower(hex(${column}))` : `encode(${column}, 'hex')`);
const bytesOf = (db: Kysely<unknown>, column: string) => (isSqlite(db) ? `unhex(${column})` : `decode(${column}, 'hex')`);

/** Runs `step(after, last)` over the `ecf` table's keys, BATCH rows at a time, in key order. */
async function overEcf(db: Kysely<unknown>, step: (after: number | string, last: number | string) => Promise<void>): Promise<void> {
  const key = rowKey(db);
  for (let after = key.first; ; ) {
    const { rows } = await sql<{ k: number | string }>`select ${key.ref} as k from ecf where ${key.ref} > ${after} order by ${key.ref} limit ${BATCH}`.execute(db);
    if (!rows.length) break;
    const last = rows[rows.length - 1]!.k;
    await step(after, last);
    if (rows.length < BATCH) break;
    after = last;
  }
}

/** A copy of signing/row-qr.ts `derivedQrUrl` as this migration shipped; never to be changed. */
interface QrRow {
  environment: string;
  issuer_rnc: string;
  type: number | string;
  encf: string;
  buyer_rnc: string | null;
  issue_date: string;
  monto_total: string;
  signed_at: string;
  security_code: string;
  submits_rfce: number | string;
}
const HOST_PATH: Record<string, string> = { test: 'testecf', cert: 'certecf', production: 'ecf' };
const query = (params: [string, string][]) => params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
function derivedQrUrl(r: QrRow): string | null {
  const env = HOST_PATH[r.environment];
  if (!env) return null;
  if (Number(r.submits_rfce) === 1) {
    return `https://fc.dgii.gov.do/${env}/consultatimbrefc?${query([
      ['RncEmisor', r.issuer_rnc],
      ['ENCF', r.encf],
      ['MontoTotal', r.monto_total],
      ['CodigoSeguridad', r.security_code],
    ])}`;
  }
  const signed = new Date(Date.parse(r.signed_at) - 4 * 3_600_000).toISOString();
  const params: [string, string][] = [['RncEmisor', r.issuer_rnc]];
  if (r.buyer_rnc && Number(r.type) !== 43 && Number(r.type) !== 47) params.push(['RncComprador', r.buyer_rnc]);
  params.push(
    ['ENCF', r.encf],
    ['FechaEmision', `${r.issue_date.slice(8, 10)}-${r.issue_date.slice(5, 7)}-${r.issue_date.slice(0, 4)}`],
    ['MontoTotal', r.monto_total],
    ['FechaFirma', `${signed.slice(8, 10)}-${signed.slice(5, 7)}-${signed.slice(0, 4)} ${signed.slice(11, 19)}`],
    ['CodigoSeguridad', r.security_code],
  );
  return `https://ecf.dgii.gov.do/${env}/consultatimbre?${query(params)}`;
}

/** `e.rowid` on SQLite, `e.id` on PostgreSQL: rowKey of the `ecf` table under the alias `e`. */
const ecfKey = (db: Kysely<unknown>) => (isSqlite(db) ? sql`e.rowid` : sql`e.id`);

async function qrRows(db: Kysely<unknown>, after: number | string, last: number | string, stored: 'whole' | 'empty') {
  const which = stored === 'empty' ? sql`e.qr_url = ''` : sql`e.qr_url <> ''`;
  const k = ecfKey(db);
  return (
    await sql<QrRow & { k: number | string; qr_url: string }>`select ${k} as k, e.qr_url, e.environment, t.rnc as issuer_rnc, e.type, e.encf, e.buyer_rnc,
      e.issue_date, e.monto_total, e.signed_at, e.security_code, e.submits_rfce
      from ecf e join tenants t on t.id = e.tenant_id where ${k} > ${after} and ${k} <= ${last} and ${which}`.execute(db)
  ).rows;
}

/** A copy of ecf/views.ts's taxauth short form as this migration shipped. */
const TAXAUTH_KEYS: Record<string, string> = {
  trackId: 't', status: 's', statusCode: 'c', sequenceUsed: 'u', messages: 'm', submittedAt: 'b', receivedAt: 'r', processedAt: 'p',
};
const TAXAUTH_NAMES: Record<string, string> = Object.fromEntries(Object.entries(TAXAUTH_KEYS).map(([k, v]) => [v, k]));
const INSTANTS = new Set(['submittedAt', 'receivedAt', 'processedAt']);
function shortTaxauth(stored: string): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(JSON.parse(stored) as Record<string, unknown>)) {
    const name = TAXAUTH_NAMES[k] ?? k;
    const ms = typeof v === 'string' ? Date.parse(v) : NaN;
    out[TAXAUTH_KEYS[name] ?? name] = INSTANTS.has(name) && Number.isFinite(ms) && new Date(ms).toISOString() === v ? ms : v;
  }
  return JSON.stringify(out);
}
function longTaxauth(stored: string): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(JSON.parse(stored) as Record<string, unknown>)) {
    const name = TAXAUTH_NAMES[k] ?? k;
    out[name] = INSTANTS.has(name) && typeof v === 'number' ? new Date(v).toISOString() : v;
  }
  return JSON.stringify(out);
}

/** Rewrites each non-null `taxauth` of the batch through `form`. */
async function rewriteTaxauth(db: Kysely<unknown>, after: number | string, last: number | string, form: (stored: string) => string): Promise<void> {
  const key = rowKey(db);
  const { rows } = await sql<{ k: number | string; taxauth: string }>`select ${key.ref} as k, taxauth from ecf
    where ${key.ref} > ${after} and ${key.ref} <= ${last} and taxauth is not null`.execute(db);
  for (const r of rows) {
    const next = form(r.taxauth);
    if (next !== r.taxauth) await sql`update ecf set taxauth = ${next} where ${key.ref} = ${r.k}`.execute(db);
  }
}

const ATTEMPT_COLUMNS = ['ecf_id', 'attempt', 'outcome', 'track_id', 'status_code', 'status_text', 'sequence_used', 'messages', 'retry_decision', 'recorded_at'];
const attemptColumns = (alias = '') => sql.raw(ATTEMPT_COLUMNS.map((c) => `${alias}${c}`).join(', '));

export async function up(db: Kysely<unknown>): Promise<void> {
  // Attempts first, while every e-CF still has its hex document_hash to compare with.
  await withoutRowid(
    db,
    db.schema
      .createTable('ecf_attempts_next')
      .addColumn('ecf_id', 'text', (c) => c.notNull().references('ecf.id'))
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('track_id', 'text')
      .addColumn('status_code', 'integer')
      .addColumn('status_text', 'text')
      .addColumn('sequence_used', 'integer')
      .addColumn('messages', 'text', (c) => c.notNull())
      .addColumn('retry_decision', 'text')
      .addColumn('xml_sha256', 'blob')
      .addColumn('recorded_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ecf_attempts_key', ['ecf_id', 'attempt']),
  ).execute();
  await overEcf(db, async (after, last) => {
    await sql`insert into ecf_attempts_next (${attemptColumns()}, xml_sha256)
      select ${attemptColumns('a.')}, case when a.xml_sha256 = e.document_hash then null else ${sql.raw(bytesOf(db, 'a.xml_sha256'))} end
      from ecf e join ecf_attempts a on a.ecf_id = e.id where ${ecfKey(db)} > ${after} and ${ecfKey(db)} <= ${last}`.execute(db);
  });
  await db.schema.dropTable('ecf_attempts').execute();
  await db.schema.alterTable('ecf_attempts_next').renameTo('ecf_attempts').execute();
  // PostgreSQL named the foreign key after the new table: the name the old one had.
  if (!isSqlite(db)) await sql`alter table ecf_attempts rename constraint ecf_attempts_next_ecf_id_fkey to ecf_attempts_ecf_id_fkey`.execute(db);
  await db.schema.createIndex('ecf_attempts_recorded').on('ecf_attempts').columns(['recorded_at']).execute();

  if (!isSqlite(db)) await sql`alter table ecf alter column request_hash type bytea using decode(request_hash, 'hex')`.execute(db);
  const key = rowKey(db);
  await overEcf(db, async (after, last) => {
    if (isSqlite(db)) {
      await sql`update ecf set request_hash = unhex(request_hash) where rowid > ${after} and rowid <= ${last} and typeof(request_hash) = 'text'`.execute(db);
    }
    await sql`update ecf set document_hash = '' where ${key.ref} > ${after} and ${key.ref} <= ${last} and document_hash <> ''
      and exists (select 1 from ecf_documents d where d.ecf_id = ecf.id and ${sql.raw(hexOf(db, 'd.xml_sha256'))} = ecf.document_hash)`.execute(db);
    const derived = (await qrRows(db, after, last, 'whole')).filter((r) => derivedQrUrl(r) === r.qr_url).map((r) => r.k);
    if (derived.length) await sql`update ecf set qr_url = '' where ${key.ref} in (${sql.join(derived)})`.execute(db);
    await rewriteTaxauth(db, after, last, shortTaxauth);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const key = rowKey(db);
  await overEcf(db, async (after, last) => {
    await rewriteTaxauth(db, after, last, longTaxauth);
    for (const r of await qrRows(db, after, last, 'empty')) await sql`update ecf set qr_url = ${derivedQrUrl(r)} where ${key.ref} = ${r.k}`.execute(db);
    await sql`update ecf set document_hash = (select ${sql.raw(hexOf(db, 'd.xml_sha256'))} from ecf_documents d where d.ecf_id = ecf.id)
      where ${key.ref} > ${after} and ${key.ref} <= ${last} and document_hash = ''`.execute(db);
    if (isSqlite(db)) await sql`update ecf set request_hash = lower(hex(request_hash)) where rowid > ${after} and rowid <= ${last} and typeof(request_hash) = 'blob'`.execute(db);
  });
  if (!isSqlite(db)) await sql`alter table ecf alter column request_hash type text using encode(request_hash, 'hex')`.execute(db);

  await db.schema
    .createTable('ecf_attempts_previous')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ecf_id', 'text', (c) => c.notNull().references('ecf.id'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('track_id', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('status_text', 'text')
    .addColumn('sequence_used', 'integer')
    .addColumn('messages', 'text', (c) => c.notNull())
    .addColumn('retry_decision', 'text')
    .addColumn('xml_sha256', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ecf_attempts_number', ['ecf_id', 'attempt'])
    .execute();
  await overEcf(db, async (after, last) => {
    const { rows } = await sql<Record<string, unknown>>`select ${attemptColumns('a.')}, case when a.xml_sha256 is null then e.document_hash else ${sql.raw(hexOf(db, 'a.xml_sha256'))} end as xml_sha256
      from ecf e join ecf_attempts a on a.ecf_id = e.id where ${ecfKey(db)} > ${after} and ${ecfKey(db)} <= ${last}`.execute(db);
    for (let i = 0; i < rows.length; i += 1000) {
      await db.insertInto('ecf_attempts_previous' as never).values(rows.slice(i, i + 1000).map((r) => ({ id: randomUUID(), ...r })) as never).execute();
    }
  });
  await db.schema.dropTable('ecf_attempts').execute();
  await db.schema.alterTable('ecf_attempts_previous').renameTo('ecf_attempts').execute();
  if (!isSqlite(db)) {
    await sql`alter table ecf_attempts rename constraint ecf_attempts_previous_pkey to ecf_attempts_pkey`.execute(db);
    await sql`alter table ecf_attempts rename constraint ecf_attempts_previous_ecf_id_fkey to ecf_attempts_ecf_id_fkey`.execute(db);
  }
  await db.schema.createIndex('ecf_attempts_recorded').on('ecf_attempts').columns(['recorded_at']).execute();
}
