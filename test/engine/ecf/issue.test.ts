import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../../../src/engine/ecf/issue.js';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { addRange, listRanges } from '../../../src/engine/sequences/ranges.js';
import { emitSequenceNotices } from '../../../src/engine/sequences/notices.js';
import { revokeCertificate, listCertificates } from '../../../src/engine/certificates/certificates.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openEngine } from '../../../src/engine/engine.js';
import { createRowTrigger, dropRowTrigger } from '../../../src/engine/store/migrations/ddl.js';
import { STORE, invoice31, seedIssuer, seedTenant, testEngine } from '../../helpers.js';
import { verifyWithXmlsec1 } from '../signing/verify-tools.js';
import { api } from '../../api.js';

async function setup(options: { rangeSize?: number } = {}) {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const seeded = await seedIssuer(engine, options);
  const issue = (payload: unknown, key: string | null = `k-${Math.random()}`, apiKey = seeded.keys.emisor) =>
    api(app).key(apiKey).post('/api/v1/ecf', JSON.stringify(payload), { headers: { 'content-type': 'application/json', ...(key !== null && { 'idempotency-key': key }) } });
  const get = (url: string) => api(app, seeded.keys).as('consultor').get(url);
  const rangeOf = async (type: number) => (await listRanges(engine, seeded.tenant.id)).find((r) => r.type === type && r.environment === 'test')!;
  return { engine, app, issue, get, rangeOf, ...seeded };
}

describe('POST /api/v1/ecf', () => {
  it('issues: 201 with the e-CF, its links, and the exact signed bytes behind /xml', async () => {
    const { issue, get, tenant } = await setup();
    const res = await issue(invoice31({ internalNumber: 'FAC-0001' }));
    expect(res.statusCode).toBe(201);
    const ecf = res.json();
    expect(ecf).toMatchObject({
      status: 'signed',
      encf: 'E310000000001',
      type: 31,
      environment: 'test',
      sequenceExpiresOn: '2035-12-31',
      issueDate: '2026-03-10',
      issuedAt: '2026-03-10T10:00:00.000-04:00',
      submitsRfce: false,
      internalNumber: 'FAC-0001',
      montoTotal: 8507.8,
      buyerRnc: '131880681',
      buyerName: 'Constructora Ejemplo SRL',
      taxauth: null,
      retry: null,
      toleranceWarning: null,
      signedDuringContingency: false,
      links: { self: `/api/v1/ecf/${ecf.id}`, xml: `/api/v1/ecf/${ecf.id}/xml`, representation: `/api/v1/ecf/${ecf.id}/representation` },
    });
    expect(ecf.qrUrl).toContain(`RncEmisor=${tenant.rnc}&RncComprador=131880681&ENCF=E310000000001&FechaEmision=10-03-2026&MontoTotal=8507.80`);
    expect(ecf.qrUrl).toContain(`CodigoSeguridad=${encodeURIComponent(ecf.securityCode)}`);

    const xml = await get(`/api/v1/ecf/${ecf.id}/xml`);
    expect(xml.statusCode).toBe(200);
    expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(createHash('sha256').update(xml.rawPayload).digest('hex')).toBe(ecf.documentHash);
    expect(validateAgainstSchema('ecf31', xml.rawPayload).errors).toEqual([]);
    expect(xml.body).toContain(`<RNCEmisor>${tenant.rnc}</RNCEmisor><RazonSocialEmisor>Ferretería Ñoño SRL</RazonSocialEmisor>`);
    expect((await get(`/api/v1/ecf/${ecf.id}`)).json()).toEqual(ecf);
    expect((await get(`/api/v1/ecf/${ecf.id}/xml?rfce=true`)).json()).toMatchObject({ status: 404, code: 'Ecf.NoRfce' });
  });

  it('replays the same key and body with 200, refuses the same key with another body, and dedupes internalNumber', async () => {
    const { issue, engine, rangeOf } = await setup();
    const first = await issue(invoice31({ internalNumber: 'FAC-7' }), 'key-1');
    expect(first.statusCode).toBe(201);
    const replay = await issue(invoice31({ internalNumber: 'FAC-7' }), 'key-1');
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual(first.json());
    const other = await issue(invoice31({ internalNumber: 'FAC-8' }), 'key-1');
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ status: 409, code: 'Ecf.IdempotencyKeyReused' });
    const sameInternal = await issue(invoice31({ internalNumber: 'FAC-7', sellerCode: 'V2' }), 'key-2');
    expect(sameInternal.statusCode).toBe(200);
    expect(sameInternal.json().id).toBe(first.json().id);
    expect((await rangeOf(31)).next).toBe(2);
    expect(await engine.db.selectFrom('ecf').select('id').execute()).toHaveLength(1);
  });

  it('creates exactly one e-CF for 50 concurrent requests with one key', async () => {
    const { issue, engine, rangeOf } = await setup();
    const responses = await Promise.all(Array.from({ length: 50 }, () => issue(invoice31(), 'same-key')));
    const ids = new Set(responses.map((r) => r.json().id));
    expect(ids.size).toBe(1);
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(49);
    expect(await engine.db.selectFrom('ecf').select('id').execute()).toHaveLength(1);
    expect((await rangeOf(31)).next).toBe(2);
  });

  it('needs an Idempotency-Key', async () => {
    const { issue } = await setup();
    const res = await issue(invoice31(), null);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('Ecf.IdempotencyKeyRequired');
    expect((await issue(invoice31(), '   ')).json().code).toBe('Ecf.IdempotencyKeyRequired');
  });

  it('tells an over-long Idempotency-Key apart from a missing one, and burns no number', async () => {
    const { issue, rangeOf } = await setup();
    const long = await issue(invoice31(), 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1));
    expect(long.statusCode).toBe(400);
    expect(long.headers['content-type']).toContain('application/problem+json');
    expect(long.json()).toMatchObject({ status: 400, code: 'Ecf.IdempotencyKeyTooLong' });
    expect(long.json().detail).toContain(`at most ${MAX_IDEMPOTENCY_KEY_LENGTH}`);
    expect((await rangeOf(31)).next).toBe(1);
    // The limit counts the key trimmed, and is inclusive.
    expect((await issue(invoice31(), ` ${'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH)} `)).statusCode).toBe(201);
  });

  it('answers 400 with every validation problem and burns no number', async () => {
    const { issue, rangeOf } = await setup();
    const res = await issue({ type: 31, lines: [{ name: 'x', quantity: 0, unitPrice: '-1' }] });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('Validation.Failed');
    expect(Object.keys(body.errors)).toEqual(expect.arrayContaining(['incomeType', 'buyer', 'lines[0].quantity', 'lines[0].unitPrice']));
    expect((await rangeOf(31)).next).toBe(1);
  });

  it('gives the number back when storing fails after allocation (one transaction)', async () => {
    const { issue, engine, rangeOf } = await setup();
    const fail = STORE === 'sqlite' ? `select raise(abort, 'simulated failure')` : `raise exception 'simulated failure'`;
    await createRowTrigger(engine.db as never, { name: 'fail_store', table: 'ecf_documents', on: 'insert', body: [fail] });
    const res = await issue(invoice31());
    expect(res.statusCode).toBe(500);
    expect((await rangeOf(31)).next).toBe(1);
    expect(await engine.db.selectFrom('ecf').select('id').execute()).toEqual([]);
    expect(await listEvents(engine.db)).toEqual([]);
    await dropRowTrigger(engine.db as never, 'fail_store', 'ecf_documents');
    const ok = await issue(invoice31());
    expect(ok.json().encf).toBe('E310000000001');
  });

  it.runIf(STORE === 'sqlite')('answers 503 when the store stays locked, and issues once it is free', async () => {
    const { issue, engine, rangeOf } = await setup();
    const { default: SQLite } = await import('better-sqlite3');
    const { join } = await import('node:path');
    await sql`pragma busy_timeout = 100`.execute(engine.db);
    const other = new SQLite(join(engine.dataDir, 'ecf.sqlite'));
    other.exec('begin immediate');
    try {
      const res = await issue(invoice31(), 'locked');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 503, code: 'Store.Unavailable' });
    } finally {
      other.exec('rollback');
      other.close();
    }
    expect((await issue(invoice31(), 'locked')).statusCode).toBe(201);
    expect((await rangeOf(31)).next).toBe(2);
  });

  it.runIf(STORE === 'postgres')('answers 503 when a lock wait passes lock_timeout, and issues once the lock is gone', async () => {
    const { engine, rangeOf, keys } = await setup();
    const url = readFileSync(join(engine.dataDir, 'database-url'), 'utf8').trim();
    const impatient = await openEngine({ dataDir: engine.dataDir, clock: engine.clock, databaseUrl: `${url}?options=${encodeURIComponent('-c lock_timeout=100')}` });
    const app = await buildApp({ engine: impatient });
    const issue = () =>
      api(app, keys).as('emisor').post('/api/v1/ecf', JSON.stringify(invoice31()), { headers: { 'content-type': 'application/json', 'idempotency-key': 'locked' } });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('lock table sequence_ranges in exclusive mode');
      const res = await issue();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 503, code: 'Store.Unavailable' });
      await other.query('rollback');
      expect((await issue()).statusCode).toBe(201);
      expect((await rangeOf(31)).next).toBe(2);
    } finally {
      await other.end();
      await app.close();
      await impatient.close();
    }
  });

  it('answers 409 without an active certificate or a range, and 400 without an emitter profile', async () => {
    const { issue, engine, tenant } = await setup();
    await engine.db.updateTable('sequence_ranges').set({ active: 0 }).where('type', '=', 31).execute();
    expect((await issue(invoice31())).json()).toMatchObject({ status: 409, code: 'Sequence.Exhausted' });
    await engine.db.updateTable('sequence_ranges').set({ active: 1 }).execute();
    for (const c of await listCertificates(engine, tenant.id)) await revokeCertificate(engine, tenant.id, c.id);
    expect((await issue(invoice31())).json()).toMatchObject({ status: 409, code: 'Certificate.NoneActive' });
    const bare = await seedTenant(engine, { profile: false });
    const res = await issue(invoice31(), 'x', bare.keys.emisor);
    expect(res.json()).toMatchObject({ status: 400, code: 'EmitterProfile.Missing' });
  });

  it('signs type 32 under DOP 250,000 with its RFCE, downloadable with rfce=true', async () => {
    const { issue, get } = await setup();
    const res = await issue({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 2, unitPrice: '95.00' }] });
    const ecf = res.json();
    expect(ecf).toMatchObject({ encf: 'E320000000001', submitsRfce: true, sequenceExpiresOn: null, links: { rfceXml: `/api/v1/ecf/${ecf.id}/xml?rfce=true` } });
    const rfce = await get(`/api/v1/ecf/${ecf.id}/xml?rfce=true`);
    expect(rfce.statusCode).toBe(200);
    expect(validateAgainstSchema('rfce', rfce.rawPayload).errors).toEqual([]);
    expect(rfce.body).toContain(`<CodigoSeguridadeCF>${ecf.securityCode}</CodigoSeguridadeCF>`);
  });

  it('in external mode takes the caller’s e-NCF once per tenant', async () => {
    const { issue, engine, tenant } = await setup();
    await setSetting(engine, 'sequences.mode', 'external', tenant.id);
    const payload = invoice31({ encf: 'E310000000500', sequenceExpiresOn: '2027-12-31' });
    const first = await issue(payload);
    expect(first.statusCode).toBe(201);
    expect(first.json().encf).toBe('E310000000500');
    const again = await issue({ ...payload, internalNumber: 'other' });
    expect(again.json()).toMatchObject({ status: 409, code: 'Ecf.EncfAlreadyUsed' });
    const managedField = await issue(invoice31());
    expect(managedField.statusCode).toBe(400);
  });

  it('detects duplicates: observar issues and tells, rechazar refuses', async () => {
    const { issue, engine, tenant } = await setup();
    const first = (await issue(invoice31())).json();
    const twin = await issue(invoice31());
    expect(twin.statusCode).toBe(201);
    const events = await listEvents(engine.db, { tenantId: tenant.id });
    const suspected = events.filter((e) => e.type === 'ecf.duplicate_suspected');
    expect(suspected).toHaveLength(1);
    expect(suspected[0]!.data.object).toMatchObject({ ecf: { id: twin.json().id }, previousEcfId: first.id, previousEncf: first.encf });
    await setSetting(engine, 'duplicates.mode', 'rechazar', tenant.id);
    expect((await issue(invoice31())).json()).toMatchObject({ status: 409, code: 'Ecf.DuplicateSuspected' });
    engine.clock.advance(11 * 60_000);
    expect((await issue(invoice31())).statusCode).toBe(201);
  });
});

describe('sequences', () => {
  it('lists ranges with capacity, remaining and low stock; allocate advances; events at low stock and exhaustion, once', async () => {
    const { app, engine, keys, tenant, issue } = await setup({ rangeSize: 5 });
    const list = await api(app, keys).as('admin_tenant').get('/api/v1/sequences');
    expect(list.json().find((r: { type: number }) => r.type === 31)).toMatchObject({
      series: 'E', rangeFrom: 1, rangeTo: 5, next: 1, capacity: 5, remaining: 5, isLowStock: false, expiresOn: '2035-12-31', active: true, typeName: 'Factura de Crédito Fiscal Electrónica',
    });
    const allocate = () => api(app, keys).as('admin_tenant').post('/api/v1/sequences/allocate', { environment: 'test', type: 31 });
    expect((await allocate()).json()).toEqual({ encf: 'E310000000001', type: 31, series: 'E', sequential: 1 });
    expect((await allocate()).json().sequential).toBe(2);
    expect((await allocate()).json().sequential).toBe(3);
    expect((await allocate()).json().sequential).toBe(4); // 1 of 5 left: 20 %, low
    expect((await issue(invoice31())).json().encf).toBe('E310000000005');
    const exhausted = await allocate();
    expect(exhausted.statusCode).toBe(409);
    expect(exhausted.json().code).toBe('Sequence.Exhausted');
    const types = (await listEvents(engine.db, { tenantId: tenant.id })).map((e) => e.type);
    expect(types).toEqual(['sequence.low', 'sequence.exhausted']);
  });

  it('refuses overlapping ranges and bad bounds', async () => {
    const { engine, tenant } = await setup();
    await expect(addRange(engine, { tenantId: tenant.id, environment: 'test', type: 31, rangeFrom: 500, rangeTo: 2000, expiresOn: '2027-12-31' })).rejects.toMatchObject({ code: 'Sequence.Overlap' });
    const other = await addRange(engine, { tenantId: tenant.id, environment: 'production', type: 31, rangeFrom: 500, rangeTo: 2000, expiresOn: '2027-12-31' });
    expect(other.capacity).toBe(1501);
    await expect(addRange(engine, { tenantId: tenant.id, environment: 'cert', type: 32, rangeFrom: 10, rangeTo: 5, expiresOn: '2027-01-01' })).rejects.toMatchObject({
      errors: [
        { path: 'rangeTo', code: 'Sequence.Reversed', message: 'must not be below rangeFrom' },
        { path: 'expiresOn', code: 'Sequence.NoExpiryForType', message: 'type 32 ranges have no expiry date' },
      ],
    });
  });

  it('never hands out numbers of an expired range, and tells of expiry at 30 and 7 days, then once expired', async () => {
    const { engine, issue } = await setup();
    await engine.db.updateTable('sequence_ranges').set({ expires_on: '2026-04-20' }).where('type', '=', 31).execute();
    const told = async () => (await emitSequenceNotices(engine)).map((e) => `${e.type}:${(e.data.object as { threshold?: number }).threshold ?? '-'}`);
    expect(await told()).toEqual([]);
    engine.clock.set('2026-03-21T15:00:00Z'); // 30 days before
    expect(await told()).toEqual(['sequence.expiring:30']);
    expect(await told()).toEqual([]);
    engine.clock.set('2026-04-13T15:00:00Z');
    expect(await told()).toEqual(['sequence.expiring:7']);
    engine.clock.set('2026-04-21T15:00:00Z');
    expect(await told()).toEqual(['sequence.expired:-']);
    expect(await told()).toEqual([]);
    expect((await issue(invoice31())).json()).toMatchObject({ code: 'Sequence.Exhausted' });
  });
});

describe('listing e-CF', () => {
  it('filters by every contract parameter and pages', async () => {
    const { issue, get, engine } = await setup();
    const made: { id: string; encf: string; type: number }[] = [];
    const day = (d: string) => engine.clock.set(`${d}T15:00:00Z`);
    day('2026-03-01');
    made.push((await issue(invoice31({ internalNumber: 'A-1' }))).json());
    day('2026-03-05');
    made.push((await issue(invoice31({ buyer: { rnc: '101010101', name: 'Otro Cliente SA' }, lines: [{ name: 'Caja', quantity: 1, unitPrice: '100.00' }] }))).json());
    day('2026-03-09');
    made.push((await issue({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 1, unitPrice: '50.00' }] })).json());
    await engine.db.updateTable('ecf').set({ status: 'accepted' }).where('id', '=', made[0]!.id).execute();
    await engine.db.updateTable('ecf').set({ retry: JSON.stringify({ count: 1, max: 3, nextAttemptAt: null }) }).where('id', '=', made[1]!.id).execute();

    const encfs = async (query: string) => {
      const res = await get(`/api/v1/ecf?${query}`);
      expect(res.statusCode, query).toBe(200);
      return res.json().items.map((i: { encf: string }) => i.encf);
    };
    expect(await encfs('')).toEqual(['E320000000001', 'E310000000002', 'E310000000001']);
    expect(await encfs('Type=32')).toEqual(['E320000000001']);
    expect(await encfs('Status=accepted')).toEqual(['E310000000001']);
    expect(await encfs('Search=E31')).toEqual(['E310000000002', 'E310000000001']);
    expect(await encfs('Search=1010')).toEqual(['E310000000002']);
    expect(await encfs('Search=A-')).toEqual(['E310000000001']);
    expect(await encfs('Search=otro')).toEqual(['E310000000002']);
    expect(await encfs('From=2026-03-05&To=2026-03-05')).toEqual(['E310000000002']);
    expect(await encfs('Environment=production')).toEqual([]);
    expect(await encfs('Retrying=true')).toEqual(['E310000000002']);
    expect(await encfs('Retrying=false')).toEqual(['E320000000001', 'E310000000001']);
    expect(await encfs('MinAmount=100&MaxAmount=200')).toEqual(['E310000000002']);
    expect(await encfs('Sort=montoTotal&Order=asc')).toEqual(['E320000000001', 'E310000000002', 'E310000000001']);
    expect(await encfs('sort=issuedAt&order=asc&type=31')).toEqual(['E310000000001', 'E310000000002']);
    const page = (await get('/api/v1/ecf?PageSize=2&Page=2')).json();
    expect(page).toMatchObject({ totalCount: 3, page: 2, pageSize: 2, totalPages: 2, hasNextPage: false, hasPreviousPage: true });
    expect(page.items.map((i: { encf: string }) => i.encf)).toEqual(['E310000000001']);
    const skipped = (await get('/api/v1/ecf?PageSize=1&Skip=1')).json();
    expect(skipped.items.map((i: { encf: string }) => i.encf)).toEqual(['E310000000002']);
    expect(skipped).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const bad = await get('/api/v1/ecf?Sort=price&PageSize=x');
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors).sort()).toEqual(['query.PageSize', 'query.Sort']);
  });

  it('counts exactly: totals kept by triggers match counting the rows through inserts, status changes and deletes', async () => {
    const { issue, get, engine, tenant } = await setup();
    const other = await seedIssuer(engine);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await issue(invoice31({ lines: [{ name: `Caja ${i}`, quantity: 1, unitPrice: '10.00' }] }))).json().id);
    ids.push((await issue({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 1, unitPrice: '50.00' }] })).json().id);
    await engine.db.updateTable('ecf').set({ status: 'accepted' }).where('id', 'in', ids.slice(0, 2)).execute();
    await engine.db.updateTable('ecf').set({ status: 'rejected' }).where('id', '=', ids[2]!).execute();
    await engine.db.updateTable('ecf').set({ environment: 'cert' }).where('id', '=', ids[3]!).execute();
    await engine.db.deleteFrom('ecf_documents').where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', ids[4]!)).execute();
    await engine.db.deleteFrom('ecf').where('id', '=', ids[4]!).execute();

    const rows = async (where: (q: ReturnType<typeof base>) => ReturnType<typeof base>) =>
      Number((await where(base()).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const base = () => engine.db.selectFrom('ecf').where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenant.id));
    const total = async (query: string) => (await get(`/api/v1/ecf?${query}`)).json().totalCount as number;
    expect(await total('')).toBe(await rows((q) => q));
    expect(await total('')).toBe(4);
    expect(await total('Status=accepted')).toBe(2);
    expect(await total('Status=rejected&Type=31')).toBe(1);
    expect(await total('Type=32')).toBe(0);
    expect(await total('Environment=cert')).toBe(1);
    expect(await total('Environment=test&Status=signed')).toBe(await rows((q) => q.where('environment', '=', 'test').where('status', '=', 'signed')));
    const counted = await engine.db.selectFrom('ecf_counts').select((eb) => eb.fn.sum<number>('n').as('n')).where('tenant_id', '=', other.tenant.id).executeTakeFirst();
    expect(Number(counted?.n ?? 0)).toBe(0);
  });

  it('searches by prefix within the tenant only, buyer names without case or accents, combined with filters', async () => {
    const { issue, get, engine, app } = await setup();
    const other = await seedIssuer(engine);
    const buyer = { rnc: '101010101', name: 'Ferretería Ozama SRL' };
    const mine = (await issue(invoice31({ buyer, internalNumber: 'FAC-7' }))).json();
    await issue({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 1, unitPrice: '50.00' }] });
    await api(app, other.keys).as('emisor').post('/api/v1/ecf', JSON.stringify(invoice31({ buyer, internalNumber: 'FAC-7' })), { headers: { 'content-type': 'application/json', 'idempotency-key': 'other-1' } });
    const encfs = async (query: string) => (await get(`/api/v1/ecf?${query}`)).json().items.map((i: { encf: string }) => i.encf);
    const totals = async (query: string) => (await get(`/api/v1/ecf?${query}`)).json().totalCount;
    for (const s of ['ferre', 'FERRETERÍA', 'ferreteria oz', '1010', 'FAC-', 'e31']) {
      expect(await encfs(`Search=${encodeURIComponent(s)}`), s).toEqual([mine.encf]);
      expect(await totals(`Search=${encodeURIComponent(s)}`), s).toBe(1);
    }
    // Matching two ways (RNC and internal number) is still one e-CF.
    const twice = (await issue(invoice31({ buyer: { rnc: '131313131', name: 'Doble SRL' }, internalNumber: '1313-A', lines: [{ name: 'Caja', quantity: 1, unitPrice: '7.00' }] }))).json();
    expect(await encfs('Search=1313')).toEqual([twice.encf]);
    expect(await totals('Search=1313')).toBe(1);
    expect(await encfs('Search=E31&Sort=montoTotal&Order=asc')).toEqual([twice.encf, mine.encf]);
    expect(await encfs('Search=E31&PageSize=1&Page=2')).toEqual([mine.encf]);
    expect(await encfs('Search=ferre&Type=32')).toEqual([]);
    expect(await encfs('Search=E3&Type=32')).toHaveLength(1);
    expect(await encfs('Search=erre')).toEqual([]);
    expect(await encfs(`Search=${encodeURIComponent('%')}`)).toEqual([]);
  });

  it('keeps tenants apart: another tenant’s e-CF is 404 and never listed', async () => {
    const { issue, app, engine } = await setup();
    const mine = (await issue(invoice31())).json();
    const other = await seedIssuer(engine);
    const theirs = await api(app, other.keys).as('consultor').get(`/api/v1/ecf/${mine.id}`);
    expect(theirs.statusCode).toBe(404);
    const xml = await api(app, other.keys).as('consultor').get(`/api/v1/ecf/${mine.id}/xml`);
    expect(xml.statusCode).toBe(404);
    const list = await api(app, other.keys).as('consultor').get('/api/v1/ecf');
    expect(list.json().totalCount).toBe(0);
  });

  it('stores signatures that verify with xmlsec1', async () => {
    const { issue, get } = await setup();
    const ecf = (await issue(invoice31())).json();
    const xml = (await get(`/api/v1/ecf/${ecf.id}/xml`)).body;
    const cert = /<X509Certificate>([^<]+)</.exec(xml)![1]!;
    const pem = `-----BEGIN CERTIFICATE-----\n${cert.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
    const result = verifyWithXmlsec1(xml, pem);
    expect(result.ok, result.output).toBe(true);
  });
});
