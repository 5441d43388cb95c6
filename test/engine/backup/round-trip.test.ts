import { createHash } from 'node:crypto';
import { documentHashOf } from '../../../src/engine/ecf/views.js';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { backupDataDir } from '../../../src/engine/backup/backup.js';
import { openBackup } from '../../../src/engine/backup/format.js';
import { restoreDataDir } from '../../../src/engine/backup/restore.js';
import { secretReferencesIn } from '../../../src/engine/backup/secret-refs.js';
import type { ManualClock } from '../../../src/engine/clock.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { codeOf } from './code-of.js';
import { sandboxedStore } from './sandboxed-store.js';
import { verifyRangesAfterRestore } from '../../../src/engine/sequences/restore-check.js';
import { decideCommercialApproval } from '../../../src/engine/reception/approve.js';
import { JOURNAL_KINDS } from '../../../src/engine/journal/index.js';
import { readStatusKey, setStatusKey } from '../../../src/engine/taxauth/status-key.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { parseXml, verifySignature } from '../../../src/engine/signing/verify.js';
import { COPIED_TABLES, DERIVED_TABLES } from '../../../src/engine/backup/copy-store.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { buildApp } from '../../../src/http/app.js';
import { drive } from '../submission/harness.js';
import { allowLoopback, emitEvent } from '../webhooks/harness.js';
import { STORE, TEST_SERVER_URL, invoice31, tempDir, testDataDir } from '../../helpers.js';

/**
 * The backup round trip of issue 25 on the store this run uses: a populated
 * store (e-CF accepted through the sandbox, one sent as RFCE, a received
 * e-CF and its commercial approval, a certificate, a webhook with pending
 * deliveries), backed up, refused onto a wrong passphrase and a store in
 * use, restored into a fresh store, and compared: every row of every copied
 * table, the secrets by name, every signed document hashed again and its
 * signature verified. On PostgreSQL the same file also restores onto SQLite,
 * and a backup of that SQLite copy back onto PostgreSQL.
 */
const PASSPHRASE = 'contraseña de respaldo';

const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!.close();
});

async function populated() {
  const { engine, sandbox, tenant } = await sandboxedStore(closing, 50);
  // The authority's status API key: a secret named by a platform_state row rather than a column.
  await setStatusKey(engine, 'status-key-0123456789');
  await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
  const app = await buildApp({ engine });
  await app.listen({ host: '127.0.0.1', port: 0 });
  closing.push(app);

  let n = 0;
  const issue = async (payload: unknown) => (await issueEcf(engine, tenant.id, { idempotencyKey: `rt-${++n}`, payload })).ecf;
  await issue(invoice31({ internalNumber: 'FAC-1' }));
  await issue(invoice31({ internalNumber: 'FAC-2', lines: [{ name: 'Cemento gris', quantity: 3, unitPrice: '450.00' }] }));
  // A consumer invoice under the threshold travels as RFCE: its second signed document is kept too.
  await issue({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 2, unitPrice: '95.00' }] });

  // Another taxpayer (the sandbox's) sends the tenant an e-CF, which the tenant approves.
  const receiverUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/${tenant.id}`;
  const made = sandbox.control.taxpayer.makeEcf({ buyerRnc: tenant.rnc });
  await sandbox.control.taxpayer.sendEcf(receiverUrl, made.xml, { encf: made.encf });
  const received = await engine.db.selectFrom('received_ecf').select('id').executeTakeFirstOrThrow();
  await decideCommercialApproval(engine, tenant.id, received.id, { decision: 'accepted' });
  await drive(engine, engine.clock);

  // Left in flight: a webhook whose deliveries wait, and an e-CF not yet sent.
  await allowLoopback(engine);
  await createWebhook(engine, tenant.id, { url: 'http://127.0.0.1:9/hooks', events: ['ecf.*'] });
  await emitEvent(engine, tenant.id, 'ecf.accepted', { encf: 'E310000000001' });
  await issue(invoice31({ internalNumber: 'FAC-3' }));
  return { engine, tenant };
}

type Rows = Record<string, unknown[]>;

/**
 * Every row of every table a backup carries, and of those the triggers keep,
 * in key order, bytes as base64. A kept count back at zero is no row here:
 * a restore onto PostgreSQL rebuilds the counts from the e-CF as they are,
 * so the zeros left by e-CF that moved on to another status are not made.
 */
async function everyRow(engine: Engine): Promise<Rows> {
  const out: Rows = {};
  for (const { table, key } of [...COPIED_TABLES, ...DERIVED_TABLES]) {
    let q = engine.db.selectFrom(table).selectAll();
    if (DERIVED_TABLES.some((d) => d.table === table)) q = q.where('n' as never, '<>', 0 as never);
    for (const column of key) q = q.orderBy(column as never);
    out[table] = (await q.execute()).map((row) =>
      Object.fromEntries(Object.entries(row as Record<string, unknown>).map(([k, v]) => [k, Buffer.isBuffer(v) ? `base64:${v.toString('base64')}` : v])),
    );
  }
  return out;
}

/** The secrets the rows name, opened from the store each row says, by name. */
async function secretsOf(engine: Engine): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const r of await secretReferencesIn(engine.db)) out[r.ref] = (await engine.secrets.of(r.store).get(r.ref))?.toString('base64') ?? 'missing';
  return out;
}

/**
 * Every signed document the store keeps: its bytes hash to the hash recorded
 * when it was signed or received, and its signature verifies.
 */
async function signedDocuments(engine: Engine, at: Date): Promise<number> {
  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const problems: string[] = [];
  let checked = 0;
  const check = (what: string, xml: Buffer, expectedSha256?: string) => {
    checked++;
    if (expectedSha256 !== undefined && sha256(xml) !== expectedSha256) problems.push(`${what}: hashes differently`);
    const parsed = parseXml(xml.toString('utf8'));
    if (!parsed.ok) return problems.push(`${what}: ${parsed.reason}`);
    const signature = verifySignature(xml.toString('utf8'), parsed, at);
    if (!signature.ok) problems.push(`${what}: ${signature.reason}`);
  };
  // Read back through the document store (decompressed, digest-checked), then hashed and verified again here.
  const read = (blob: Buffer, digest: Buffer | string | null, table: string, id: string) => engine.documents.read(engine.db, blob, digest, { table, id });
  const ecf = await engine.db.selectFrom('ecf').innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key').select(['ecf.id', 'ecf.encf', 'ecf.document_hash', 'ecf_documents.xml', 'ecf_documents.rfce_xml', 'ecf_documents.xml_sha256', 'ecf_documents.rfce_sha256']).execute();
  for (const e of ecf) {
    check(`e-CF ${e.encf}`, await read(e.xml, e.xml_sha256 ?? e.document_hash, 'ecf_documents', e.id), documentHashOf(e));
    if (e.rfce_xml) check(`RFCE of ${e.encf}`, await read(e.rfce_xml, e.rfce_sha256, 'ecf_documents', e.id));
  }
  for (const r of await engine.db.selectFrom('received_ecf').select(['id', 'encf', 'xml', 'xml_sha256', 'arecf_xml', 'arecf_sha256']).execute()) {
    check(`received ${r.encf}`, await read(r.xml, r.xml_sha256, 'received_ecf', r.id), r.xml_sha256);
    check(`ARECF of ${r.encf}`, await read(r.arecf_xml, r.arecf_sha256, 'received_ecf', r.id));
  }
  for (const a of await engine.db.selectFrom('received_ecf_approvals').select(['id', 'xml', 'xml_sha256']).execute()) check(`ACECF ${a.id}`, await read(a.xml, a.xml_sha256, 'received_ecf_approvals', a.id), a.xml_sha256);
  for (const a of await engine.db.selectFrom('inbound_approvals').select(['id', 'xml', 'xml_sha256']).execute()) check(`inbound ACECF ${a.id}`, await read(a.xml, a.xml_sha256, 'inbound_approvals', a.id), a.xml_sha256);
  for (const a of await engine.db.selectFrom('annulments').select(['id', 'xml', 'xml_sha256']).execute()) check(`ANECF ${a.id}`, await read(a.xml, a.xml_sha256, 'annulments', a.id), a.xml_sha256);
  expect(problems).toEqual([]);
  return checked;
}


/** Whether the data directory's store exists at all: its SQLite file, or its PostgreSQL database. */
async function storeExists(dataDir: string): Promise<boolean> {
  const urlFile = join(dataDir, 'database-url');
  if (!existsSync(urlFile)) return existsSync(join(dataDir, 'ecf.sqlite'));
  const name = new URL(readFileSync(urlFile, 'utf8').trim()).pathname.slice(1);
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  try {
    return (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
}

/** Restored into `dataDir` (a fresh store), it holds what `expected` held, row for row, secret for secret, document for document. */
async function expectSame(dataDir: string, clock: ManualClock, expected: { rows: Rows; secrets: Record<string, string>; documents: number }, databaseUrl?: null, restores = 1) {
  const copy = await openEngine({ dataDir, clock, ...(databaseUrl === null && { databaseUrl }) });
  try {
    const rows = await everyRow(copy);
    // A restore holds every e-NCF range until its next number is known unused (issue 32, point 7); otherwise they are as they were.
    expect(rows.sequence_ranges!.filter((r) => (r as { unverified_since: string | null }).unverified_since === null)).toEqual([]);
    rows.sequence_ranges = rows.sequence_ranges!.map((r) => ({ ...(r as object), unverified_since: null }));
    // Each restore adds one backup.restored entry to each tenant's journal (issue 35); the entries before it are as they were.
    const journal = rows.journal as { kind: number; seq: number; tenant_key: number }[];
    const restoredEntries = journal.filter((e) => e.kind === JOURNAL_KINDS['backup.restored']);
    const tenants = (expected.rows.journal_heads as { tenant_key: number }[]).map((h) => h.tenant_key);
    expect(restoredEntries.map((e) => e.tenant_key).sort()).toEqual(tenants.flatMap((t) => Array<number>(restores).fill(t)).sort());
    rows.journal = journal.filter((e) => e.kind !== JOURNAL_KINDS['backup.restored']);
    rows.journal_heads = expected.rows.journal_heads!;
    expect(rows).toEqual(expected.rows);
    expect(await secretsOf(copy)).toEqual(expected.secrets);
    expect(await signedDocuments(copy, clock.now())).toBe(expected.documents);
  } finally {
    await copy.close();
  }
}

describe(`backup round trip on ${STORE}`, () => {
  it('restores every row of every table, every secret and every signed document as they were; refuses a wrong passphrase and a store in use, changing nothing', { timeout: 120_000 }, async () => {
    const { engine, tenant } = await populated();
    const expected = { rows: await everyRow(engine), secrets: await secretsOf(engine), documents: await signedDocuments(engine, engine.clock.now()) };
    // What the round trip must carry is there: accepted e-CF, an RFCE, a received e-CF with its ARECF and ACECF, pending work and deliveries.
    expect(expected.rows.ecf!.length).toBe(4);
    expect(expected.rows.ecf!.filter((e) => (e as { status: string }).status === 'accepted').length).toBe(3);
    expect(expected.rows.received_ecf).toHaveLength(1);
    expect(expected.rows.received_ecf_approvals).toHaveLength(1);
    expect(expected.rows.webhook_deliveries!.length).toBeGreaterThan(0);
    expect(expected.rows.work!.length).toBeGreaterThan(0);
    expect(Object.keys(expected.secrets)).toHaveLength(3);
    expect(expected.documents).toBe(4 + 1 + 2 + 1);

    const file = join(tempDir(), 'nightly.ecfbak');
    const made = await backupDataDir(engine, file, PASSPHRASE);
    expect(made).toMatchObject({ store: STORE, secrets: 3, missingSecrets: [] });
    const opened = await openBackup(file, PASSPHRASE);
    expect(opened.manifest.store).toBe(STORE);
    expect(opened.manifest.secrets).toHaveLength(3);
    const raw = readFileSync(file);
    expect(raw.includes(Buffer.from('clave-ñ'))).toBe(false);
    expect(raw.includes(Buffer.from('status-key-0123456789'))).toBe(false);

    // Refused before anything is written: the fresh store is not even created, the store in use keeps every row.
    const target = testDataDir('ecf-restored-');
    expect(await codeOf(restoreDataDir(file, target, 'otra contraseña'))).toBe('passphrase:Backup.WrongPassphrase');
    expect(await storeExists(target)).toBe(false);
    expect(await codeOf(restoreDataDir(file, engine.dataDir, PASSPHRASE))).toBe('Restore.DataDirInUse');
    expect(await everyRow(engine)).toEqual(expected.rows);

    const restored = await restoreDataDir(file, target, PASSPHRASE, { clock: engine.clock });
    expect(restored).toMatchObject({ from: STORE, store: STORE, secrets: 3, secretStore: 'file', migrated: [] });
    // Another key seals the secrets there: they were carried opened, under the passphrase.
    expect(readFileSync(join(target, 'secret-store.key'), 'utf8')).not.toBe(readFileSync(join(engine.dataDir, 'secret-store.key'), 'utf8'));
    await expectSame(target, engine.clock, expected);

    if (STORE === 'postgres') {
      // The same file onto SQLite, and a backup of that SQLite copy back onto PostgreSQL.
      const onSqlite = tempDir('ecf-on-sqlite-');
      expect(await restoreDataDir(file, onSqlite, PASSPHRASE, { clock: engine.clock, databaseUrl: null })).toMatchObject({ from: 'postgres', store: 'sqlite' });
      await expectSame(onSqlite, engine.clock, expected, null);
      const sqliteEngine = await openEngine({ dataDir: onSqlite, databaseUrl: null, clock: engine.clock });
      const again = join(tempDir(), 'from-sqlite.ecfbak');
      try {
        expect(await backupDataDir(sqliteEngine, again, PASSPHRASE)).toMatchObject({ store: 'sqlite', secrets: 3 });
      } finally {
        await sqliteEngine.close();
      }
      const backOnPostgres = testDataDir('ecf-back-on-pg-');
      expect(await restoreDataDir(again, backOnPostgres, PASSPHRASE, { clock: engine.clock })).toMatchObject({ from: 'sqlite', store: 'postgres', documentsVerified: 4 });
      await expectSame(backOnPostgres, engine.clock, expected, undefined, 2);
    }

    // The restored store goes on: its certificate signs, with the next number of the range.
    const copy = await openEngine({ dataDir: target, clock: engine.clock });
    try {
      expect(await readStatusKey(copy)).toBe('status-key-0123456789');
      // Its ranges are held until the authority (the sandbox, still running) says their next numbers are unused (issue 32, point 7).
      expect((await verifyRangesAfterRestore(copy, tenant.id, { lookahead: 2 })).map((c) => c.outcome)).toEqual(Array(10).fill('verified'));
      const next = await issueEcf(copy, tenant.id, { idempotencyKey: 'after-restore', payload: invoice31({ internalNumber: 'FAC-4' }) });
      expect(next.created).toBe(true);
      expect(next.ecf.encf).toBe('E310000000004');
    } finally {
      await copy.close();
    }
  });
});
