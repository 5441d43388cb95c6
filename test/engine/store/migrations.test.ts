import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';
import { migrateDown, migrateTo, migrateToLatest, migrationStatus } from '../../../src/engine/store/migrate.js';
import { migrations } from '../../../src/engine/store/migrations/index.js';
import type { Database } from '../../../src/engine/store/schema.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { amountBand } from '../../../src/engine/ecf/amount-band.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { STORE, invoice31, seedIssuer, tempDir, testEngine } from '../../helpers.js';
import { ManualClock, dominicanDate, dominicanMonth, fromRowInstant, toDominicanIso, toRowInstant } from '../../../src/engine/clock.js';
import { ecfXml, getEcf, listEcf } from '../../../src/engine/ecf/queries.js';
import { notesModifying } from '../../../src/engine/ecf/notes.js';
import { fillNoteReferences } from '../../../src/engine/ecf/note-references.js';
import { listAttempts, recordAttempt } from '../../../src/engine/submission/attempts.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { taxauthToStore } from '../../../src/engine/ecf/views.js';
import { getEcfSending } from '../../../src/engine/submission/sending-view.js';

/**
 * Every table and column of schema.ts. The mapped type makes tsc fail when a
 * table or column is added to or removed from schema.ts without updating this.
 */
const SCHEMA: { [T in keyof Database]: Record<keyof Database[T] & string, true> } = {
  organizations: {
    id: true, name: true, plan: true, max_tenants: true, monthly_ecf_quota: true, max_members: true,
    created_at: true, updated_at: true,
  },
  organization_members: { id: true, organization_id: true, name: true, email: true, role: true, created_at: true },
  tenants: {
    id: true, organization_id: true, rnc: true, legal_name: true, trade_name: true, default_environment: true,
    created_at: true, updated_at: true, store_key: true,
  },
  emitter_profiles: {
    id: true, tenant_id: true, address: true, municipality: true, province: true, phones: true, email: true,
    economic_activity: true, created_at: true, updated_at: true,
  },
  api_keys: {
    id: true, prefix: true, key_hash: true, role: true, tenant_id: true, organization_id: true, member_id: true,
    name: true, created_at: true, last_used_at: true, revoked_at: true,
  },
  settings: { scope: true, key: true, value: true, updated_at: true },
  events: { seq: true, id: true, tenant_id: true, type: true, api_version: true, created_at: true, data: true, fact_key: true },
  work: {
    id: true, kind: true, tenant_id: true, ref: true, lane: true, payload: true, due_at: true, attempts: true, lease_owner: true,
    lease_expires_at: true, last_error: true, created_at: true, updated_at: true,
  },
  certificates: {
    id: true, tenant_id: true, subject: true, subject_cn: true, subject_serial_number: true, holder_id: true,
    issuer: true, serial_number: true, fingerprint_sha256: true, key_bits: true, not_before: true, not_after: true,
    secret_store: true, secret_ref: true, created_at: true, revoked_at: true,
  },
  sequence_ranges: {
    id: true, tenant_id: true, environment: true, type: true, series: true, range_from: true, range_to: true, next: true,
    expires_on: true, active: true, created_at: true, annulled_ahead: true, unverified_since: true,
  },
  ecf: {
    store_key: true, id: true, tenant_key: true, environment: true, type: true, encf: true, status: true, sequence_expires_on: true,
    issue_date: true, issued_at: true, signed_at: true, security_code: true, qr_url: true, submits_rfce: true,
    internal_number: true, tolerance_warning: true, signed_during_contingency: true, monto_total: true,
    monto_total_cents: true, buyer_rnc: true, buyer_name: true, buyer_name_key: true, document_hash: true, idempotency_key: true,
    request_hash: true, fingerprint: true, sequence_range_id: true, taxauth: true, retry: true, updated_at: true, modifies_encf: true,
  },
  ecf_documents: { ecf_key: true, xml: true, rfce_xml: true, xml_sha256: true, rfce_sha256: true },
  document_certificates: { id: true, sha256: true, certificate: true },
  ecf_attempts: {
    ecf_key: true, attempt: true, outcome: true, track_id: true, status_code: true, status_text: true,
    sequence_used: true, messages: true, retry_decision: true, xml_sha256: true, recorded_at: true,
  },
  platform_state: { key: true, value: true, updated_at: true },
  ecf_counts: { tenant_id: true, environment: true, type: true, status: true, n: true },
  ecf_fingerprints: { tenant_id: true, fingerprint: true, issued_at: true, ecf_id: true },
  ecf_amount_counts: { tenant_id: true, band: true, environment: true, type: true, status: true, n: true },
  ecf_day_counts: { tenant_id: true, day: true, environment: true, type: true, status: true, retrying: true, n: true },
  ecf_day_amount_counts: { tenant_id: true, day: true, band: true, n: true },
  ecf_retry_counts: { tenant_id: true, environment: true, type: true, status: true, retrying: true, n: true },
  ecf_name_counts: { tenant_key: true, name_key: true, n: true },
  ecf_fine_amount_counts: { tenant_key: true, band: true, n: true },
  webhook_endpoints: {
    id: true, tenant_id: true, url: true, description: true, events: true, enabled: true, consecutive_failures: true,
    disabled_reason: true, disabled_at: true, secret_store: true, secret_ref: true, created_at: true, updated_at: true,
  },
  webhook_deliveries: {
    id: true, endpoint_id: true, tenant_id: true, event_id: true, event_type: true, status: true, attempts: true,
    next_attempt_at: true, lease_owner: true, lease_expires_at: true, last_status_code: true, last_error: true,
    created_at: true, updated_at: true,
  },
  annulments: {
    id: true, tenant_id: true, environment: true, reason: true, status: true, total_count: true, xml: true, xml_sha256: true,
    taxauth_code: true, taxauth_messages: true, last_error: true, attempts: true, sending_until: true, submitted_at: true,
    voided_at: true, created_at: true, updated_at: true,
  },
  annulment_lines: { annulment_id: true, position: true, range_id: true, type: true, series: true, range_from: true, range_to: true },
  emission_pauses: { scope: true, subject_id: true, reason: true, until: true, set_by: true, changed_by: true, paused_at: true },
  ecf_monthly_counts: { tenant_id: true, environment: true, period: true, n: true },
  tenant_alert_state: { tenant_id: true, spike_alerted_at: true },
  organization_usage: { organization_id: true, period: true, peak_tenants: true, peak_members: true, closed_at: true },
  received_ecf: {
    id: true, tenant_id: true, environment: true, status: true, reason_code: true, reason: true, issuer_rnc: true,
    issuer_name: true, buyer_rnc: true, encf: true, type: true, issue_date: true, monto_total: true, security_code: true,
    file_name: true, xml: true, xml_sha256: true, arecf_xml: true, arecf_sha256: true, received_at: true,
  },
  received_ecf_approvals: {
    id: true, received_ecf_id: true, tenant_id: true, decision: true, rejection_reason: true, xml: true, xml_sha256: true,
    decided_at: true, issuer_delivery: true, taxauth_delivery: true,
  },
  inbound_approvals: {
    id: true, tenant_id: true, ecf_id: true, encf: true, buyer_rnc: true, decision: true, rejection_reason: true,
    approved_at_text: true, xml: true, xml_sha256: true, received_at: true,
  },
  sealed_secrets: { name: true, body: true, updated_at: true },
  certifications: { tenant_id: true, pasos: true, started_at: true, updated_at: true },
  certification_cases: {
    id: true, tenant_id: true, paso: true, generation: true, sheet: true, row_number: true, case_id: true, kind: true, encf: true,
    modifies_encf: true, cells: true, state: true, xml: true, xml_sha256: true, security_code: true, track_id: true, messages: true, sent_at: true,
    verdict_at: true, updated_at: true,
  },
  reception_seeds: { value_hash: true, tenant_id: true, expires_at: true, created_at: true },
  reception_tokens: { value_hash: true, tenant_id: true, expires_at: true, created_at: true },
  journal: { tenant_key: true, seq: true, at: true, kind: true, ecf_key: true, ref: true, digest: true, data: true, link: true },
  journal_heads: { tenant_key: true, seq: true, hash: true },
  exports: { id: true, tenant_id: true, environment: true, period_from: true, period_to: true, status: true, reason: true, file_bytes: true, created_at: true, finished_at: true },
  console_sessions: { id_hash: true, key_id: true, tenant_id: true, csrf: true, created_at: true, seen_at: true, expires_at: true },
};
const TABLES = Object.keys(SCHEMA).sort();

/** Kysely's own bookkeeping; SQLite's sqlite_sequence (created by AUTOINCREMENT) can never be dropped. */
const KYSELY_TABLES = ['kysely_migration', 'kysely_migration_lock'];
const SQLITE_INTERNAL = 'sqlite_sequence';

const opened: Db[] = [];
afterEach(async () => {
  while (opened.length) await opened.pop()!.destroy();
});

function freshDb(): Db {
  const db = openDatabase(join(tempDir(), 'ecf.sqlite'));
  opened.push(db);
  return db;
}

interface MasterRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** Everything in sqlite_master (tables, indexes, autoindexes, triggers, views) but sqlite_sequence. */
async function schemaObjects(db: Db): Promise<MasterRow[]> {
  const { rows } = await sql<MasterRow>`select type, name, tbl_name, sql from sqlite_master order by type, name`.execute(db);
  return rows.filter((r) => r.name !== SQLITE_INTERNAL);
}

async function tableNames(db: Db): Promise<string[]> {
  return (await schemaObjects(db)).filter((r) => r.type === 'table').map((r) => r.name).sort();
}

async function columnsOf(db: Db, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  return rows.map((r) => r.name).sort();
}

async function sequenceRows(db: Db): Promise<{ name: string }[]> {
  const exists = (await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'sqlite_sequence'`.execute(db)).rows[0]!.n;
  if (!exists) return [];
  return (await sql<{ name: string }>`select name from sqlite_sequence`.execute(db)).rows;
}

const NAMES = Object.keys(migrations).sort();

describe('migrations', () => {
  it('lists migrations whose names sort in apply order', () => {
    expect(NAMES.length).toBeGreaterThan(0);
    expect(Object.keys(migrations)).toEqual(NAMES);
    for (const name of NAMES) expect(typeof migrations[name]!.down).toBe('function');
  });

  it('migrates a fresh file to latest, creating every table and column of schema.ts', async () => {
    const db = freshDb();
    expect(await tableNames(db)).toEqual([]);

    const steps = await migrateToLatest(db);
    expect(steps).toEqual(NAMES.map((name) => ({ name, direction: 'Up', status: 'Success' })));

    const tables = await tableNames(db);
    expect(tables).toEqual([...TABLES, ...KYSELY_TABLES].sort());
    for (const table of TABLES) {
      expect(await columnsOf(db, table), table).toEqual(Object.keys(SCHEMA[table as keyof Database]).sort());
    }
    const status = await migrationStatus(db);
    expect(status.map((s) => s.name)).toEqual(NAMES);
    for (const s of status) expect(s.executedAt, s.name).not.toBeNull();

    // Latest again is a no-op.
    expect(await migrateToLatest(db)).toEqual([]);
    expect(await tableNames(db)).toEqual(tables);
  });

  it('two connections migrating one new file at once: one applies every migration, the other waits and finds nothing to do', async () => {
    // Two processes opening a new data directory at the same moment, as two connections of one
    // process: kysely awaits between statements, so without a lock their migrations interleave.
    const file = join(tempDir(), 'ecf.sqlite');
    const [a, b] = [openDatabase(file), openDatabase(file)];
    opened.push(a, b);
    const [stepsA, stepsB] = await Promise.all([migrateToLatest(a), migrateToLatest(b)]);
    expect([stepsA.length, stepsB.length].sort((x, y) => x - y)).toEqual([0, NAMES.length]);
    expect((await migrationStatus(a)).every((m) => m.executedAt !== null)).toBe(true);
    expect(await tableNames(b)).toEqual([...TABLES, ...KYSELY_TABLES].sort());
  });

  it("migrates to 'none', leaving only kysely's bookkeeping, and up again", async () => {
    const db = freshDb();
    await migrateToLatest(db);
    const latest = await schemaObjects(db);

    const down = await migrateTo(db, 'none');
    expect(down).toEqual([...NAMES].reverse().map((name) => ({ name, direction: 'Down', status: 'Success' })));
    expect(await tableNames(db)).toEqual(KYSELY_TABLES);
    // No index, trigger or view of the project survives either.
    const leftovers = (await schemaObjects(db)).filter((r) => !KYSELY_TABLES.includes(r.tbl_name));
    expect(leftovers).toEqual([]);
    expect(await sequenceRows(db)).toEqual([]);
    for (const s of await migrationStatus(db)) expect(s.executedAt, s.name).toBeNull();

    const up = await migrateToLatest(db);
    expect(up.map((s) => [s.name, s.direction, s.status])).toEqual(NAMES.map((n) => [n, 'Up', 'Success']));
    expect(await schemaObjects(db)).toEqual(latest);
    for (const table of TABLES) {
      expect(await columnsOf(db, table), table).toEqual(Object.keys(SCHEMA[table as keyof Database]).sort());
    }
  });

  /** Migrations that rewrite rows and leave the schema as it was. */
  const DATA_ONLY = new Set(['0030-sending-state']);

  it('undoes each migration exactly with one step down', async () => {
    const db = freshDb();
    await migrateTo(db, 'none'); // creates kysely's bookkeeping only
    expect(await tableNames(db)).toEqual(KYSELY_TABLES);

    for (const name of NAMES) {
      const before = await schemaObjects(db);
      const sequencesBefore = await sequenceRows(db);

      const up = await migrateTo(db, name);
      expect(up, name).toEqual([{ name, direction: 'Up', status: 'Success' }]);
      const after = await schemaObjects(db);
      // A migration of data only changes no schema object: its own test checks its rows.
      if (DATA_ONLY.has(name)) expect(after, `${name} changes only data`).toEqual(before);
      else expect(after, `${name} changes the schema`).not.toEqual(before);

      const down = await migrateDown(db);
      expect(down, name).toEqual([{ name, direction: 'Down', status: 'Success' }]);
      expect(await schemaObjects(db), `${name} down restores the schema`).toEqual(before);
      expect(await sequenceRows(db)).toEqual(sequencesBefore);
      const status = await migrationStatus(db);
      expect(status.find((s) => s.name === name)!.executedAt).toBeNull();

      // Up again yields the same schema as the first time, then stay up for the next step.
      await migrateTo(db, name);
      expect(await schemaObjects(db)).toEqual(after);
    }
    expect(await tableNames(db)).toEqual([...TABLES, ...KYSELY_TABLES].sort());
  });

  it('keeps data written under latest when nothing is pending', async () => {
    const db = freshDb();
    await migrateToLatest(db);
    await db
      .insertInto('settings')
      .values({ scope: 'platform', key: 'retry.max', value: '5', updated_at: '2026-03-10T14:00:00.000Z' })
      .execute();
    await migrateToLatest(db);
    expect(await db.selectFrom('settings').select('value').execute()).toEqual([{ value: '5' }]);
  });

  it('0006 fills the search key and the counts of e-CF already stored', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31({ buyer: { rnc: '101010101', name: 'Ñoño Ferretería SRL' } }) });
    await issueEcf(engine, tenant.id, { idempotencyKey: 'b', payload: invoice31({ lines: [{ name: 'Caja', quantity: 1, unitPrice: '5.00' }] }) });
    await migrateTo(engine.db, '0005-list-indexes');
    await migrateToLatest(engine.db);
    const keys = await engine.db.selectFrom('ecf').select(['buyer_name', 'buyer_name_key']).orderBy('encf').execute();
    expect(keys.map((k) => k.buyer_name_key)).toEqual(['nono ferreteria srl', expect.any(String)]);
    const counts = await engine.db.selectFrom('ecf_counts').select(['environment', 'type', 'status', 'n']).where('tenant_id', '=', tenant.id).execute();
    expect(counts).toEqual([{ environment: 'test', type: 31, status: 'signed', n: 2 }]);
  });

  it('0018 counts the e-CF already stored per day and moves the fingerprints of the last seven days out of the row', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const old = await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() });
    engine.clock.advance(8 * 86_400_000);
    const recent = await issueEcf(engine, tenant.id, { idempotencyKey: 'b', payload: invoice31({ lines: [{ name: 'Caja', quantity: 1, unitPrice: '5.00' }] }) });
    await migrateTo(engine.db, '0016-ranges-held-after-restore');
    // As 0003 wrote rows: the fingerprint on the row (the issue path of today writes it elsewhere).
    await engine.db.updateTable('ecf').set({ fingerprint: 'f-old' }).where('id', '=', old.ecf.id).execute();
    await engine.db.updateTable('ecf').set({ fingerprint: 'f-recent' }).where('id', '=', recent.ecf.id).execute();
    await migrateToLatest(engine.db);
    expect(await engine.db.selectFrom('ecf_fingerprints').select(['fingerprint', 'ecf_id']).execute()).toEqual([{ fingerprint: 'f-recent', ecf_id: recent.ecf.id }]);
    expect((await engine.db.selectFrom('ecf').select('fingerprint').execute()).map((r) => r.fingerprint)).toEqual(['', '']);
    const days = await engine.db.selectFrom('ecf_day_counts').select(['day', 'type', 'status', 'retrying', 'n']).where('tenant_id', '=', tenant.id).orderBy('day').execute();
    expect(days).toEqual([
      { day: old.ecf.issuedAt.slice(0, 10), type: 31, status: 'signed', retrying: 0, n: 1 },
      { day: recent.ecf.issuedAt.slice(0, 10), type: 31, status: 'signed', retrying: 0, n: 1 },
    ]);
  });
  it('0021 gives each tenant a store key in creation order and converts ecf, its indexes and the count triggers to it', async () => {
    const engine = await testEngine();
    const a = (await seedIssuer(engine)).tenant;
    const b = (await seedIssuer(engine)).tenant;
    const mine = (await issueEcf(engine, a.id, { idempotencyKey: 'a', payload: invoice31() })).ecf;
    const theirs = (await issueEcf(engine, b.id, { idempotencyKey: 'a', payload: invoice31() })).ecf;
    await migrateTo(engine.db, '0020-slim-row');
    const before = await sql<{ id: string; tenant_id: string }>`select id, tenant_id from ecf order by id`.execute(engine.db);
    expect(new Map(before.rows.map((r) => [r.id, r.tenant_id]))).toEqual(new Map([[mine.id, a.id], [theirs.id, b.id]]));
    await migrateToLatest(engine.db);

    // Creation order: both were made at the same instant of the test clock, so by id.
    const [first, second] = a.id < b.id ? [1, 2] : [2, 1];
    const keys = new Map((await engine.db.selectFrom('tenants').select(['id', 'store_key']).execute()).map((t) => [t.id, Number(t.store_key)]));
    expect([keys.get(a.id), keys.get(b.id)]).toEqual([first, second]);
    const rows = await engine.db.selectFrom('ecf').select(['id', 'tenant_key']).execute();
    expect(new Map(rows.map((r) => [r.id, Number(r.tenant_key)]))).toEqual(new Map([[mine.id, first], [theirs.id, second]]));
    const indexes = STORE === 'sqlite'
      ? (await sql<{ def: string }>`select sql as def from sqlite_master where type = 'index' and tbl_name = 'ecf' and sql is not null`.execute(engine.db)).rows
      : (await sql<{ def: string }>`select indexdef as def from pg_indexes where tablename = 'ecf' and indexname not in ('ecf_pkey', 'ecf_store_key')`.execute(engine.db)).rows;
    expect(indexes.length).toBeGreaterThanOrEqual(12);
    for (const { def } of indexes) expect(def).toMatch(/\("?tenant_key"?, /);

    // The rewritten triggers count the next e-CF under its tenant's id.
    await issueEcf(engine, b.id, { idempotencyKey: 'b', payload: invoice31() });
    const counts = await engine.db.selectFrom('ecf_counts').select(['tenant_id', 'n']).execute();
    expect(new Map(counts.map((c) => [c.tenant_id, Number(c.n)]))).toEqual(new Map([[a.id, 1], [b.id, 2]]));
    const days = await engine.db.selectFrom('ecf_day_counts').select(['tenant_id', (eb) => eb.fn.sum<number>('n').as('n')]).groupBy('tenant_id').execute();
    expect(new Map(days.map((c) => [c.tenant_id, Number(c.n)]))).toEqual(new Map([[a.id, 1], [b.id, 2]]));
  });
  it('0022 keeps the instants of ecf and ecf_attempts as integer milliseconds (signed_at null when it is issued_at), both ways, with the same views and counts', async () => {
    // Around the Dominican day and month edges (04:00 UTC), with milliseconds.
    const engine = await testEngine(new ManualClock('2026-03-31T03:59:59.987Z'));
    const { tenant } = await seedIssuer(engine);
    const issue = async (at: string, key: string) => {
      engine.clock.set(at);
      return (await issueEcf(engine, tenant.id, { idempotencyKey: key, payload: invoice31({ internalNumber: key }) })).ecf;
    };
    const ecf = [await issue('2026-03-31T03:59:59.987Z', 'a'), await issue('2026-03-31T04:00:00.001Z', 'b'), await issue('2026-04-01T03:59:59.999Z', 'c')];
    const ids = ecf.map((e) => e.id);
    await inTransaction(engine.db, (tx) => recordAttempt(tx, new Date('2026-04-01T05:06:07.089Z'), { ecfId: ids[0]!, outcome: 'accepted', trackId: 't-1', messages: [] }));
    await engine.db.updateTable('ecf').set({ updated_at: toRowInstant('2026-04-01T05:06:07.089Z') }).where('id', '=', ids[0]!).execute();
    const stored = async () => (await engine.db.selectFrom('ecf').select(['id', 'issued_at', 'signed_at', 'updated_at']).orderBy('id').execute()).map((r) => ({ ...r }));
    expect(await stored()).toEqual(ecf.map((e) => ({ id: e.id, issued_at: Date.parse(e.issuedAt), signed_at: null, updated_at: e.id === ids[0] ? Date.parse('2026-04-01T05:06:07.089Z') : null })).sort((x, y) => (x.id < y.id ? -1 : 1)));
    const views = async () => ({
      one: await Promise.all(ids.map((id) => getEcf(engine, tenant.id, id))),
      list: (await listEcf(engine, tenant.id, {})).items,
      days: await Promise.all(['2026-03-30', '2026-03-31', '2026-04-01'].map(async (d) => (await listEcf(engine, tenant.id, { From: d, To: d })).items.map((e) => e.id))),
      attempts: await listAttempts(engine, tenant.id, ids[0]!),
    });
    const before = await views();
    expect(before.days).toEqual([[ids[0]], [ids[2], ids[1]], []]);
    expect(before.attempts[0]!.recordedAt).toBe(toDominicanIso('2026-04-01T05:06:07.089Z'));

    // Down: ISO text again, signed_at filled, as 0021 had them.
    await migrateTo(engine.db, '0021-tenant-key');
    const text = await sql<{ id: string; issued_at: string; signed_at: string; updated_at: string | null }>`select id, issued_at, signed_at, updated_at from ecf order by id`.execute(engine.db);
    expect(text.rows).toEqual((await Promise.all(ids.map((id) => getEcfText(id)))).sort((x, y) => (x.id < y.id ? -1 : 1)));
    expect((await sql<{ r: string }>`select recorded_at as r from ecf_attempts`.execute(engine.db)).rows).toEqual([{ r: '2026-04-01T05:06:07.089Z' }]);
    // A row signed at another instant than its issue keeps it.
    await sql`update ecf set signed_at = '2026-04-01T03:59:58.500Z' where id = ${ids[2]}`.execute(engine.db);

    await migrateToLatest(engine.db);
    const after = await views();
    expect(after).toEqual({
      ...before,
      one: before.one.map((v) => (v.id === ids[2] ? { ...v, signedAt: toDominicanIso('2026-04-01T03:59:58.500Z'), qrUrl: v.qrUrl.replace('23%3A59%3A59', '23%3A59%3A58') } : v)),
    });
    expect((await stored()).find((r) => r.id === ids[2])!.signed_at).toBe(Date.parse('2026-04-01T03:59:58.500Z'));

    // The rewritten triggers keep the counts by Dominican day and month equal to a count by reading.
    await issue('2026-04-30T04:00:00.000Z', 'd');
    await engine.db.updateTable('ecf').set({ issued_at: toRowInstant('2026-05-01T03:59:59.999Z') }).where('id', '=', ids[1]!).execute();
    const rows = await engine.db.selectFrom('ecf').select('issued_at').execute();
    const tally = (keyOf: (iso: string) => string) => {
      const m = new Map<string, number>();
      for (const r of rows) m.set(keyOf(fromRowInstant(r.issued_at)), (m.get(keyOf(fromRowInstant(r.issued_at))) ?? 0) + 1);
      return m;
    };
    const days = await engine.db.selectFrom('ecf_day_counts').select(['day', (eb) => eb.fn.sum<number>('n').as('n')]).where('tenant_id', '=', tenant.id).groupBy('day').having((eb) => eb.fn.sum('n'), '<>', 0).execute();
    expect(new Map(days.map((d) => [d.day, Number(d.n)]))).toEqual(tally(dominicanDate));
    const months = await engine.db.selectFrom('ecf_monthly_counts').select(['period', 'n']).where('tenant_id', '=', tenant.id).where('n', '<>', 0).execute();
    expect(new Map(months.map((m) => [m.period, Number(m.n)]))).toEqual(tally(dominicanMonth));
    expect((await listEcf(engine, tenant.id, { From: '2026-04-30', To: '2026-04-30' })).items.map((e) => e.id)).toEqual([ids[1], expect.any(String)]);

    function getEcfText(id: string) {
      const v = before.one.find((e) => e.id === id)!;
      const iso = fromRowInstant(Date.parse(v.issuedAt));
      return { id, issued_at: iso, signed_at: iso, updated_at: id === ids[0] ? '2026-04-01T05:06:07.089Z' : null };
    }
  });

  it('0023 counts the e-CF already stored per day and amount band and per retry pending, and its triggers count the changes', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const first = (await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() })).ecf;
    engine.clock.advance(86_400_000);
    const second = (await issueEcf(engine, tenant.id, { idempotencyKey: 'b', payload: invoice31({ lines: [{ name: 'Caja', quantity: 1, unitPrice: '5.00' }] }) })).ecf;
    await migrateTo(engine.db, '0022-integer-instants');
    await migrateToLatest(engine.db);
    const band = (amount: string | number) => amountBand(Math.round(Number(amount) * 100));
    const counted = async () =>
      (await engine.db.selectFrom('ecf_day_amount_counts').select(['tenant_id', 'day', 'band', 'n']).where('n', '<>', 0).orderBy('day').orderBy('band').execute()).map((r) => ({ ...r, n: Number(r.n) }));
    expect(await counted()).toEqual([
      { tenant_id: tenant.id, day: dominicanDate(first.issuedAt), band: band(first.montoTotal), n: 1 },
      { tenant_id: tenant.id, day: dominicanDate(second.issuedAt), band: band(second.montoTotal), n: 1 },
    ]);
    await engine.db.updateTable('ecf').set({ monto_total_cents: 1, monto_total: '0.01' }).where('id', '=', first.id).execute();
    const retries = async () =>
      (await engine.db.selectFrom('ecf_retry_counts').select(['tenant_id', 'retrying', 'n']).where('n', '<>', 0).orderBy('retrying').execute()).map((r) => ({ ...r, n: Number(r.n) }));
    expect(await retries()).toEqual([{ tenant_id: tenant.id, retrying: 0, n: 2 }]);
    await engine.db.updateTable('ecf').set({ issued_at: toRowInstant(first.issuedAt), retry: JSON.stringify({ count: 1, max: 3, nextAttemptAt: null }) }).where('id', '=', second.id).execute();
    expect(await retries()).toEqual([{ tenant_id: tenant.id, retrying: 0, n: 1 }, { tenant_id: tenant.id, retrying: 1, n: 1 }]);
    expect(await counted()).toEqual([
      { tenant_id: tenant.id, day: dominicanDate(first.issuedAt), band: 1, n: 1 },
      { tenant_id: tenant.id, day: dominicanDate(first.issuedAt), band: band(second.montoTotal), n: 1 },
    ]);
  });

  it('0025 counts the e-CF already stored per buyer name key and fine amount band, and its triggers count the changes', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const first = (await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() })).ecf;
    // A consumer's e-CF names no buyer: it counts under the empty name key.
    const second = (await issueEcf(engine, tenant.id, { idempotencyKey: 'b', payload: { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Caja', quantity: 1, unitPrice: '5.00' }] } })).ecf;
    await migrateTo(engine.db, '0024-document-key');
    await migrateToLatest(engine.db);
    const key = await tenantKey(engine.db, tenant.id);
    const rows = async (table: 'ecf_name_counts' | 'ecf_fine_amount_counts') =>
      (await engine.db.selectFrom(table).selectAll().where('n', '<>', 0).execute()).map((r) => ({ ...r, n: Number(r.n) })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const fine = (amount: string | number) => amountBand(Math.round(Number(amount) * 100), 3);
    const firstName = (await engine.db.selectFrom('ecf').select('buyer_name_key').where('id', '=', first.id).executeTakeFirstOrThrow()).buyer_name_key!;
    expect(firstName).toBeTruthy();
    expect(await rows('ecf_name_counts')).toEqual([{ tenant_key: key, name_key: '', n: 1 }, { tenant_key: key, name_key: firstName, n: 1 }]);
    expect(await rows('ecf_fine_amount_counts')).toEqual(
      [{ tenant_key: key, band: fine(first.montoTotal), n: 1 }, { tenant_key: key, band: fine(second.montoTotal), n: 1 }].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    await engine.db.updateTable('ecf').set({ buyer_name_key: 'otra', monto_total_cents: 12_345, monto_total: '123.45' }).where('id', '=', second.id).execute();
    expect(await rows('ecf_name_counts')).toEqual([{ tenant_key: key, name_key: firstName, n: 1 }, { tenant_key: key, name_key: 'otra', n: 1 }].sort((a, b) => a.name_key.localeCompare(b.name_key)));
    expect((await rows('ecf_fine_amount_counts')).find((r) => r.band === 5123)).toEqual({ tenant_key: key, band: 5123, n: 1 });
    await migrateTo(engine.db, '0024-document-key');
    await expect(engine.db.selectFrom('ecf_name_counts').selectAll().execute()).rejects.toThrow();
    await expect(engine.db.selectFrom('ecf_fine_amount_counts').selectAll().execute()).rejects.toThrow();
  });

  it("0029 and the engine fill each stored note's modified e-NCF from its signed XML, not a reference to another taxpayer's, and the notes are found by it", async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const invoice = (await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() })).ecf;
    const note = (key: string, reference: Record<string, string>) =>
      issueEcf(engine, tenant.id, {
        idempotencyKey: key,
        payload: invoice31({ type: 34, reference: { modifiedNcfDate: invoice.issueDate, modificationCode: '3', ...reference }, lines: [{ name: 'Devolución', quantity: 1, unitPrice: '10.00' }] }),
      });
    const ours = (await note('b', { modifiedNcf: invoice.encf })).ecf;
    const foreign = (await note('c', { modifiedNcf: invoice.encf, otherIssuerRnc: '101000001' })).ecf;
    const kept = async () => new Map((await engine.db.selectFrom('ecf').select(['id', 'modifies_encf']).execute()).map((r) => [r.id, r.modifies_encf]));
    const expected = new Map([[invoice.id, null], [ours.id, invoice.encf], [foreign.id, null]]);
    expect(await kept()).toEqual(expected);

    await migrateTo(engine.db, '0028-console-sessions');
    await expect(engine.db.selectFrom('ecf').select('modifies_encf').execute()).rejects.toThrow();
    await migrateToLatest(engine.db);
    // The migration leaves the stored notes to the engine, which reads their documents as it opens.
    expect(await kept()).toEqual(new Map([...expected.keys()].map((id) => [id, null])));
    expect(await fillNoteReferences(engine)).toBe(1);
    expect(await kept()).toEqual(expected);
    expect(await engine.db.selectFrom('platform_state').select('key').where('key', '=', 'store.fill.note_references').execute()).toEqual([]);
    expect(await fillNoteReferences(engine)).toBe(0);
    expect((await notesModifying(engine, tenant.id, invoice.id)).map((n) => n.id)).toEqual([ours.id]);
    await engine.close();
  });

  it("0030 makes each submission's payload the conversation at rest, its trackId read from the e-CF row, and back", async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const [sending, polling, fresh] = [
      (await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() })).ecf,
      (await issueEcf(engine, tenant.id, { idempotencyKey: 'b', payload: invoice31() })).ecf,
      (await issueEcf(engine, tenant.id, { idempotencyKey: 'c', payload: invoice31() })).ecf,
    ];
    await migrateTo(engine.db, '0029-note-references');
    const old = {
      [sending.id]: { phase: 'send', unclear: true, sentAt: '2026-03-10T14:00:00.000Z', transportFailures: 2, requestId: 'req-1' },
      [polling.id]: { phase: 'poll', trackId: 'trk-9', polls: 3, busyAnswers: 1 },
      [fresh.id]: { phase: 'send' },
    };
    for (const [id, payload] of Object.entries(old)) await engine.db.updateTable('work').set({ payload: JSON.stringify(payload) }).where('ref', '=', id).execute();
    // The row keeps the receipt as the recorder writes it (short keys, migration 0020).
    await engine.db.updateTable('ecf').set({ taxauth: taxauthToStore({ trackId: 'trk-9', submittedAt: '2026-03-10T14:00:01.000Z' }) }).where('id', '=', polling.id).execute();
    const payloads = async () => new Map((await engine.db.selectFrom('work').select(['ref', 'payload']).execute()).map((w) => [w.ref, JSON.parse(w.payload) as unknown]));

    await migrateToLatest(engine.db);
    expect(await payloads()).toEqual(new Map<string, unknown>([
      [sending.id, { phase: 'unclear', failures: 2, sentAt: '2026-03-10T14:00:00.000Z', requestId: 'req-1' }],
      [polling.id, { phase: 'answered', polls: 3, busy: 1 }],
      [fresh.id, { phase: 'prepared' }],
    ]));
    const seen = await Promise.all([sending, polling, fresh].map(async (e) => {
      const s = await getEcfSending(engine, tenant.id, e.id);
      return [s.next, s.trackId, s.polls, s.failures, s.busy];
    }));
    expect(seen).toEqual([['ask', null, 0, 2, 0], ['poll', 'trk-9', 3, 0, 1], ['send', null, 0, 0, 0]]);

    await migrateTo(engine.db, '0029-note-references');
    expect(await payloads()).toEqual(new Map<string, unknown>([
      [sending.id, { phase: 'send', unclear: true, transportFailures: 2, sentAt: '2026-03-10T14:00:00.000Z', requestId: 'req-1' }],
      [polling.id, { phase: 'poll', trackId: 'trk-9', polls: 3, busyAnswers: 1 }],
      [fresh.id, { phase: 'send' }],
    ]));
    await engine.close();
  });

  it('0024 points ecf_documents and ecf_attempts at an integer key of each e-CF, keeping every document and attempt', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const consumer32 = { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 2, unitPrice: '95.00' }] };
    const issued = [
      (await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() })).ecf,
      (await issueEcf(engine, tenant.id, { idempotencyKey: 'b', payload: consumer32 })).ecf,
      (await issueEcf(engine, tenant.id, { idempotencyKey: 'c', payload: invoice31() })).ecf,
    ];
    const attempt = (ecfId: string, outcome: 'failed' | 'accepted', trackId: string) =>
      inTransaction(engine.db, (tx) => recordAttempt(tx, engine.clock.now(), { ecfId, outcome, trackId, statusCode: outcome === 'accepted' ? 1 : null, messages: [] }));
    await attempt(issued[0]!.id, 'failed', 'trk-1');
    await attempt(issued[0]!.id, 'accepted', 'trk-2');
    await attempt(issued[2]!.id, 'accepted', 'trk-3');
    const documents = async () => Promise.all(issued.map(async (e) => [(await ecfXml(engine, tenant.id, e.id)).bytes, e.type === 32 ? (await ecfXml(engine, tenant.id, e.id, true)).bytes : null]));
    const attempts = async () => Promise.all(issued.map((e) => listAttempts(engine, tenant.id, e.id)));
    const before = { documents: await documents(), attempts: await attempts() };
    expect(before.attempts.map((a) => a.length)).toEqual([2, 0, 1]);

    await migrateTo(engine.db, '0023-list-paths');
    // What 0023 holds: the text id in both tables (on SQLite with a gap in the rowids, which the key keeps).
    const old = await sql<{ ecf_id: string }>`select ecf_id from ecf_documents order by ecf_id`.execute(engine.db);
    expect(old.rows.map((r) => r.ecf_id)).toEqual(issued.map((e) => e.id).sort());
    expect((await sql<{ ecf_id: string }>`select distinct ecf_id from ecf_attempts`.execute(engine.db)).rows).toHaveLength(2);
    if (STORE === 'sqlite') await sql`update ecf set rowid = rowid + 10 where id = ${issued[2]!.id}`.execute(engine.db);
    // An `ecf store compress` left half way, its cursor at a key of the old layout.
    const halfDone = { after: STORE === 'sqlite' ? 2 : issued[1]!.id, done: false, converted: 2, damaged: 0, damagedRefs: [] };
    await engine.db.insertInto('platform_state').values({ key: 'store.compress.ecf_documents', value: JSON.stringify(halfDone), updated_at: '2026-03-10T14:00:00.000Z' }).execute();
    const rowids = STORE === 'sqlite' ? new Map((await sql<{ id: string; k: number }>`select id, rowid as k from ecf`.execute(engine.db)).rows.map((r) => [r.id, Number(r.k)])) : null;

    await migrateToLatest(engine.db);
    const keys = new Map((await engine.db.selectFrom('ecf').select(['id', 'store_key']).orderBy('id').execute()).map((r) => [r.id, Number(r.store_key)]));
    // SQLite keeps each rowid as the key; PostgreSQL numbers the e-CF in id order.
    expect(keys).toEqual(rowids ?? new Map([...keys.keys()].map((id, i) => [id, i + 1])));
    const pointed = await engine.db.selectFrom('ecf_documents').innerJoin('ecf', 'ecf.store_key', 'ecf_documents.ecf_key').select(['ecf.id', 'ecf_documents.ecf_key']).execute();
    expect(new Map(pointed.map((r) => [r.id, Number(r.ecf_key)]))).toEqual(keys);
    if (STORE === 'sqlite') {
      expect((await sql`pragma foreign_key_check`.execute(engine.db)).rows).toEqual([]);
      const autoindexes = await sql<{ name: string }>`select name from sqlite_master where tbl_name in ('ecf_documents', 'ecf_attempts') and type = 'index'`.execute(engine.db);
      expect(autoindexes.rows.map((r) => r.name)).toEqual(['ecf_attempts_recorded']);
    }
    // The half-done conversion walks ecf_documents again from the start, by the new key.
    const cursor = await engine.db.selectFrom('platform_state').select('value').where('key', '=', 'store.compress.ecf_documents').executeTakeFirstOrThrow();
    expect(JSON.parse(cursor.value)).toEqual({ ...halfDone, after: 0 });
    // Every document reads back byte for byte, every attempt lists the same.
    expect(await documents()).toEqual(before.documents);
    expect(await attempts()).toEqual(before.attempts);

    // A new e-CF takes the next key; its documents and attempts follow it.
    const next = (await issueEcf(engine, tenant.id, { idempotencyKey: 'd', payload: invoice31() })).ecf;
    await attempt(next.id, 'accepted', 'trk-4');
    const nextKey = Number((await engine.db.selectFrom('ecf').select('store_key').where('id', '=', next.id).executeTakeFirstOrThrow()).store_key);
    expect(nextKey).toBeGreaterThan(Math.max(...keys.values()));
    expect((await listAttempts(engine, tenant.id, next.id)).map((a) => a.trackId)).toEqual(['trk-4']);
    expect((await ecfXml(engine, tenant.id, next.id)).bytes.length).toBeGreaterThan(0);

    // Down gives the text ids back, and up again the same keys.
    await migrateTo(engine.db, '0023-list-paths');
    const back = await sql<{ ecf_id: string; n: number }>`select ecf_id, count(*) as n from ecf_attempts group by ecf_id order by ecf_id`.execute(engine.db);
    expect(back.rows.map((r) => [r.ecf_id, Number(r.n)])).toEqual([[issued[0]!.id, 2], [issued[2]!.id, 1], [next.id, 1]].sort((x, y) => String(x[0]).localeCompare(String(y[0]))));
    if (STORE === 'sqlite') expect((await sql`pragma foreign_key_check`.execute(engine.db)).rows).toEqual([]);
    await migrateToLatest(engine.db);
    expect(await documents()).toEqual(before.documents);
    expect(await attempts()).toEqual(before.attempts);
    await issueEcf(engine, tenant.id, { idempotencyKey: 'e', payload: invoice31() });
  });
});
