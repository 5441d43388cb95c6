import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { ecfXml, getEcf } from '../../../src/engine/ecf/queries.js';
import { derivedQrUrl, qrUrlToStore } from '../../../src/engine/signing/row-qr.js';
import { taxauthOf, taxauthToStore } from '../../../src/engine/ecf/views.js';
import { migrateTo, migrateToLatest } from '../../../src/engine/store/migrate.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { listAttempts } from '../../../src/engine/submission/attempts.js';
import { recordAttempt } from '../../../src/engine/submission/attempts.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';

const consumer32 = { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 2, unitPrice: '95.00' }] };

/** A fixed row: what the frozen formula gives for it may never change (an e-CF's printed QR reads the same in ten years). */
const ROW = {
  environment: 'production',
  issuer_rnc: '131234567',
  type: 31,
  encf: 'E310000000123',
  buyer_rnc: '131880681',
  issue_date: '2026-03-10',
  monto_total: '8507.80',
  // Milliseconds since migration 0022; signed_at null: signed at the issue instant.
  issued_at: Date.parse('2026-03-10T14:05:09.123Z'),
  signed_at: null,
  security_code: 'a+B/c9',
  submits_rfce: 0,
};

async function setup() {
  const engine = await testEngine();
  const { tenant } = await seedIssuer(engine);
  const a = (await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() })).ecf;
  const b = (await issueEcf(engine, tenant.id, { idempotencyKey: 'b', payload: consumer32 })).ecf;
  await inTransaction(engine.db, (tx) => recordAttempt(tx, engine.clock.now(), { ecfId: a.id, outcome: 'accepted', trackId: 'trk-1', statusCode: 1, messages: [] }));
  return { engine, tenant, a, b };
}

describe('the slim e-CF row (migration 0020)', () => {
  it('keeps no QR URL, document digest or attempt digest that it can give back, and shows the same views', async () => {
    const { engine, tenant, a, b } = await setup();
    for (const ecf of [a, b]) {
      const row = await engine.db.selectFrom('ecf').select(['qr_url', 'document_hash', 'request_hash']).where('id', '=', ecf.id).executeTakeFirstOrThrow();
      expect(row.qr_url).toBe('');
      expect(row.document_hash).toBe('');
      expect(Buffer.isBuffer(row.request_hash) && row.request_hash.length).toBe(32);
      const bytes = (await ecfXml(engine, tenant.id, ecf.id)).bytes;
      expect(ecf.documentHash).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(await getEcf(engine, tenant.id, ecf.id)).toEqual(ecf);
    }
    expect(a.qrUrl).toMatch(/^https:\/\/ecf\.dgii\.gov\.do\/testecf\/consultatimbre\?RncEmisor=\d+&RncComprador=131880681&ENCF=E310000000001&FechaEmision=10-03-2026&MontoTotal=8507\.80&FechaFirma=10-03-2026%2010%3A00%3A00&CodigoSeguridad=/);
    expect(b.qrUrl).toMatch(/^https:\/\/fc\.dgii\.gov\.do\/testecf\/consultatimbrefc\?RncEmisor=\d+&ENCF=E320000000001&MontoTotal=224\.20&CodigoSeguridad=/);

    const attempt = await engine.db.selectFrom('ecf_attempts').selectAll().executeTakeFirstOrThrow();
    expect(attempt).not.toHaveProperty('id');
    expect(attempt.xml_sha256).toBeNull();
    expect((await listAttempts(engine, tenant.id, a.id))[0]).toMatchObject({ attempt: 1, trackId: 'trk-1', xmlSha256: a.documentHash });

    // The same key and body replay the e-CF; another body under the key is refused: the 32 raw bytes compare.
    expect((await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() })).created).toBe(false);
    await expect(issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31({ internalNumber: 'other' }) })).rejects.toMatchObject({ code: 'Ecf.IdempotencyKeyReused' });
  });

  it('rebuilds the QR with a frozen formula, and keeps whole a URL that another formula or base URL made', () => {
    expect(derivedQrUrl(ROW)).toBe(
      'https://ecf.dgii.gov.do/ecf/consultatimbre?RncEmisor=131234567&RncComprador=131880681&ENCF=E310000000123&FechaEmision=10-03-2026&MontoTotal=8507.80&FechaFirma=10-03-2026%2010%3A05%3A09&CodigoSeguridad=a%2BB%2Fc9',
    );
    expect(derivedQrUrl({ ...ROW, type: 43 })).toBe(
      'https://ecf.dgii.gov.do/ecf/consultatimbre?RncEmisor=131234567&ENCF=E310000000123&FechaEmision=10-03-2026&MontoTotal=8507.80&FechaFirma=10-03-2026%2010%3A05%3A09&CodigoSeguridad=a%2BB%2Fc9',
    );
    expect(derivedQrUrl({ ...ROW, submits_rfce: 1, environment: 'cert' })).toBe(
      'https://fc.dgii.gov.do/certecf/consultatimbrefc?RncEmisor=131234567&ENCF=E310000000123&MontoTotal=8507.80&CodigoSeguridad=a%2BB%2Fc9',
    );
    // A URL signed under a later formula or base URL is not what this one gives: it is stored whole.
    const later = derivedQrUrl(ROW)!.replace('https://ecf.dgii.gov.do/ecf/', 'https://timbre.dgii.gov.do/ecf/');
    expect(qrUrlToStore(ROW, later)).toBe(later);
    expect(qrUrlToStore(ROW, derivedQrUrl(ROW)!)).toBe('');
  });

  it('keeps taxauth in a short form that reads back as the same object, key for key and in order', () => {
    // The order a review then a verdict leaves (status before statusCode, apart), an instant the authority wrote its own way.
    const shown = {
      trackId: '0f6c2a8e-3b1d-4c3e-9a55-1e0b4b7d9c21', submittedAt: '2026-03-10T14:00:02.000Z', status: 'Aceptado', messages: [{ code: 0, value: 'ok' }],
      statusCode: 1, sequenceUsed: true, receivedAt: '2026-03-10T10:00:03-04:00', processedAt: '2026-03-10T14:00:09.123Z',
    };
    const stored = taxauthToStore(shown);
    expect(JSON.stringify(taxauthOf(stored))).toBe(JSON.stringify(shown));
    expect(JSON.parse(stored)).toMatchObject({ t: shown.trackId, b: Date.parse(shown.submittedAt), r: shown.receivedAt, p: Date.parse(shown.processedAt) });
    expect(stored.length).toBeLessThan(JSON.stringify(shown).length - 90);
    // Written before migration 0020 (long keys): read as it is.
    expect(JSON.stringify(taxauthOf(JSON.stringify(shown)))).toBe(JSON.stringify(shown));
  });

  it('converts a store written before it and back, every view the same; a QR URL or attempt digest it cannot rebuild stays', async () => {
    const { engine, tenant, a, b } = await setup();
    const attemptsBefore = await listAttempts(engine, tenant.id, a.id);

    await migrateTo(engine.db, '0019-retention');
    const old = await engine.db.selectFrom('ecf').select(['id', 'qr_url', 'document_hash', 'request_hash']).orderBy('encf').execute();
    expect(old.map((r) => [r.qr_url, r.document_hash])).toEqual([[a.qrUrl, a.documentHash], [b.qrUrl, b.documentHash]]);
    expect(old.every((r) => typeof r.request_hash === 'string' && /^[0-9a-f]{64}$/.test(r.request_hash as unknown as string))).toBe(true);
    const oldAttempt = (await engine.db.selectFrom('ecf_attempts').selectAll().executeTakeFirstOrThrow()) as unknown as { id: string; xml_sha256: string };
    expect(oldAttempt.xml_sha256).toBe(a.documentHash);
    expect(oldAttempt.id).toMatch(/^[0-9a-f-]{36}$/);

    // What a release before 0020 might hold: a QR URL of another formula, an attempt that sent other bytes, a verdict.
    const otherUrl = `${b.qrUrl}&Version=2`;
    const otherDigest = 'ab'.repeat(32);
    const verdict = { trackId: 'trk-1', submittedAt: '2026-03-10T14:00:02.000Z', status: 'Aceptado', statusCode: 1, sequenceUsed: true, messages: [], processedAt: '2026-03-10T14:00:09.000Z' };
    await engine.db.updateTable('ecf').set({ qr_url: otherUrl }).where('id', '=', b.id).execute();
    await engine.db.updateTable('ecf').set({ taxauth: JSON.stringify(verdict) }).where('id', '=', a.id).execute();
    await engine.db.updateTable('ecf_attempts').set({ xml_sha256: otherDigest as never }).execute();

    await migrateToLatest(engine.db);
    const rows = await engine.db.selectFrom('ecf').select(['id', 'qr_url', 'document_hash', 'request_hash']).orderBy('encf').execute();
    expect(rows.map((r) => [r.qr_url, r.document_hash])).toEqual([['', ''], [otherUrl, '']]);
    expect(rows.map((r) => r.request_hash.toString('hex'))).toEqual(old.map((r) => r.request_hash));
    expect(await getEcf(engine, tenant.id, a.id)).toEqual({ ...a, taxauth: verdict });
    expect(JSON.stringify((await getEcf(engine, tenant.id, a.id)).taxauth)).toBe(JSON.stringify(verdict));
    const short = (await engine.db.selectFrom('ecf').select('taxauth').where('id', '=', a.id).executeTakeFirstOrThrow()).taxauth!;
    expect(JSON.parse(short)).toMatchObject({ t: 'trk-1', b: Date.parse(verdict.submittedAt) });
    expect(await getEcf(engine, tenant.id, b.id)).toEqual({ ...b, qrUrl: otherUrl });
    expect(await listAttempts(engine, tenant.id, a.id)).toEqual([{ ...attemptsBefore[0], xmlSha256: otherDigest }]);
    expect((await issueEcf(engine, tenant.id, { idempotencyKey: 'b', payload: consumer32 })).created).toBe(false);

    // And down again gives back the long form as it was.
    await migrateTo(engine.db, '0019-retention');
    expect((await engine.db.selectFrom('ecf').select('taxauth').where('id', '=', a.id).executeTakeFirstOrThrow()).taxauth).toBe(JSON.stringify(verdict));
    expect((await engine.db.selectFrom('ecf').select('qr_url').where('id', '=', b.id).executeTakeFirstOrThrow()).qr_url).toBe(otherUrl);
    await migrateToLatest(engine.db);
  });
});
