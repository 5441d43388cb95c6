import { describe, expect, it } from 'vitest';
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';
import type { Engine } from '../../../src/engine/engine-types.js';
import { openEngine } from '../../../src/engine/engine.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { annulSequences, getAnnulment, listAnnulments, retryAnnulment } from '../../../src/engine/sequences/annulments.js';
import { allocate, listRanges } from '../../../src/engine/sequences/ranges.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { invoice31 } from '../../helpers.js';
import { annulHarness, expectValidAnecf, line, storedAnecf } from './tools.js';

type H = Awaited<ReturnType<typeof annulHarness>>;

const annul = (h: H, lines: ReturnType<typeof line>[], reason = 'Cierre de la sucursal de Santiago') =>
  annulSequences(h.engine, h.tenant.id, { environment: 'test', reason, lines });

const take = async (h: H, type: number, n: number, engine: Engine = h.engine) => {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await allocate(engine, h.tenant.id, { environment: 'test', type })).encf);
  return out;
};

const rangeOf = async (h: H, type: number, from = 1) => (await listRanges(h.engine, h.tenant.id)).find((r) => r.type === type && r.environment === 'test' && r.rangeFrom === from)!;

describe('POST /sequences/annulments through the engine and the sandbox', () => {
  it('discards the numbers, builds, signs and sends the ANECF, and records the authority’s confirmation', async () => {
    const h = await annulHarness();
    await take(h, 31, 2); // E31…1 and E31…2 are used
    const record = await annul(h, [line(34, 990, 1000), line(31, 5, 7), line(31, 3, 3)]);

    expect(record).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      environment: 'test',
      reason: 'Cierre de la sucursal de Santiago',
      status: 'voided',
      totalCount: 15,
      lines: [
        { type: 34, series: 'E', rangeFrom: 990, rangeTo: 1000, count: 11, typeName: 'Nota de Crédito Electrónica' },
        { type: 31, series: 'E', rangeFrom: 5, rangeTo: 7, count: 3, typeName: 'Factura de Crédito Fiscal Electrónica' },
        { type: 31, series: 'E', rangeFrom: 3, rangeTo: 3, count: 1, typeName: 'Factura de Crédito Fiscal Electrónica' },
      ],
      taxauthCode: '15',
      taxauthMessages: ['Las secuencias fueron anuladas correctamente.'],
      lastError: null,
      attempts: 1,
      submittedAt: '2026-03-10T10:00:00.000-04:00',
      voidedAt: '2026-03-10T10:00:00.000-04:00',
      createdAt: '2026-03-10T10:00:00.000-04:00',
    });

    // The authority received exactly the stored, signed bytes, named after the issuer and the first e-NCF.
    const stored = await storedAnecf(h.engine, record.id);
    const [received] = h.sandbox.control.annulments();
    expect(received).toMatchObject({ annulled: true, rnc: h.tenant.rnc, fileName: `${h.tenant.rnc}E310000000003.xml`, xml: stored.xml });
    await expectValidAnecf(h.engine, h.tenant.id, stored.xml);

    // One Anulacion per type, in type order, ranges lowest first, with their counts.
    const doc = new DOMParser().parseFromString(stored.xml, 'text/xml');
    const text = (el: Element | Document, name: string) => Array.from(el.getElementsByTagName(name)).map((e: Element) => e.textContent);
    expect(text(doc, 'RncEmisor')).toEqual([h.tenant.rnc]);
    expect(text(doc, 'FechaHoraAnulacioneNCF')).toEqual(['10-03-2026 10:00:00']);
    const lines = Array.from(doc.getElementsByTagName('Anulacion'));
    expect(lines.map((l) => [text(l, 'NoLinea')[0], text(l, 'TipoeCF')[0], text(l, 'CantidadeNCFAnulados')[0]])).toEqual([
      ['1', '31', '4'],
      ['2', '34', '11'],
    ]);
    expect(text(lines[0]!, 'SecuenciaeNCFDesde')).toEqual(['E310000000003', 'E310000000005']);
    expect(text(lines[0]!, 'SecuenciaeNCFHasta')).toEqual(['E310000000003', 'E310000000007']);
    expect(text(doc, 'CantidadeNCFAnulados')[0]).toBe('15');

    // The allocator steps over the discarded numbers, and the ranges count them out.
    expect(await take(h, 31, 3)).toEqual(['E310000000004', 'E310000000008', 'E310000000009']);
    expect(await rangeOf(h, 31)).toMatchObject({ next: 10, remaining: 991 });
    expect(await rangeOf(h, 34)).toMatchObject({ next: 1, remaining: 989 });
    expect(await getAnnulment(h.engine, h.tenant.id, record.id)).toEqual(record);
    expect(await listAnnulments(h.engine, h.tenant.id)).toEqual([record]);
  });

  it('annulling a tail empties the range: nothing more is allocated from it, and the next range takes over', async () => {
    const h = await annulHarness();
    await take(h, 31, 1);
    const record = await annul(h, [line(31, 2, 1000)]);
    expect(record.status).toBe('voided');
    expect(await rangeOf(h, 31)).toMatchObject({ next: 1001, remaining: 0 });
    expect(await take(h, 31, 1)).toEqual(['E310000001001']);
    await expect(annul(h, [line(34, 1, 1000)])).resolves.toMatchObject({ status: 'voided', totalCount: 1000 });
    await expect(allocate(h.engine, h.tenant.id, { environment: 'test', type: 34 })).rejects.toMatchObject({ code: 'Sequence.Exhausted' });
  });

  it('lines that follow one another, in one request or in several, are all stepped over', async () => {
    const h = await annulHarness();
    await annul(h, [line(33, 3, 4), line(33, 1, 2)]);
    await annul(h, [line(33, 5, 6)]);
    await annul(h, [line(33, 8, 8)]);
    expect(await rangeOf(h, 33)).toMatchObject({ next: 7, remaining: 993 });
    expect(await take(h, 33, 2)).toEqual(['E330000000007', 'E330000000009']);
    expect(await rangeOf(h, 33)).toMatchObject({ next: 10, remaining: 991 });
  });

  it('an authority that does not answer leaves the annulment failed with lastError; the numbers stay discarded; retry sends the same bytes', async () => {
    const h = await annulHarness();
    h.sandbox.control.script({ outcomes: [{ kind: 'http5xx' }] });
    const failed = await annul(h, [line(31, 1, 5)]);
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 1,
      taxauthCode: null,
      taxauthMessages: [],
      submittedAt: null,
      voidedAt: null,
      lastError: expect.stringContaining('HTTP 503 (anulacionrangos)'),
    });
    expect(h.sandbox.control.annulments()).toEqual([]);
    expect(await take(h, 31, 1)).toEqual(['E310000000006']);
    const before = await storedAnecf(h.engine, failed.id);
    await expectValidAnecf(h.engine, h.tenant.id, before.xml);

    h.engine.clock.advance(3_600_000);
    const voided = await retryAnnulment(h.engine, h.tenant.id, failed.id);
    expect(voided).toMatchObject({
      id: failed.id,
      status: 'voided',
      attempts: 2,
      taxauthCode: '15',
      lastError: null,
      submittedAt: '2026-03-10T11:00:00.000-04:00',
      voidedAt: '2026-03-10T11:00:00.000-04:00',
      createdAt: '2026-03-10T10:00:00.000-04:00',
    });
    const [received] = h.sandbox.control.annulments();
    expect(received!.xml).toBe(before.xml);
    expect(await storedAnecf(h.engine, failed.id)).toEqual(before);
    expect(await take(h, 31, 1)).toEqual(['E310000000007']);
    await expect(retryAnnulment(h.engine, h.tenant.id, failed.id)).rejects.toMatchObject({ kind: 'conflict', code: 'Annulment.NotRetryable' });
  });

  it.each([
    ['a timeout', { kind: 'timeout' as const, ms: 60_000 }, /No answer from the tax authority \(anulacionrangos\) within 300 ms/],
    ['a connection closed without an answer', { kind: 'unreachable' as const, forMs: 60_000 }, /Could not reach the tax authority \(anulacionrangos\)/],
  ])('%s is a failure too, and the retry is voided', async (_name, outcome, error) => {
    const h = await annulHarness({ timeoutMs: 300 });
    h.sandbox.control.script({ outcomes: [outcome] });
    const failed = await annul(h, [line(45, 10, 20)]);
    expect(failed).toMatchObject({ status: 'failed', lastError: expect.stringMatching(error) });
    h.sandbox.control.setUnreachable(false);
    expect((await retryAnnulment(h.engine, h.tenant.id, failed.id)).status).toBe('voided');
    expect(h.sandbox.control.annulments().map((a) => a.xml)).toEqual([(await storedAnecf(h.engine, failed.id)).xml]);
  });

  it('failing to authenticate (the authority unreachable from the seed on) is a failure; nothing reached anularrango', async () => {
    const h = await annulHarness();
    h.sandbox.control.setUnreachable(true);
    const failed = await annul(h, [line(41, 1, 1)]);
    expect(failed).toMatchObject({ status: 'failed', lastError: expect.stringContaining('(semilla)') });
    h.sandbox.control.setUnreachable(false);
    expect((await retryAnnulment(h.engine, h.tenant.id, failed.id)).status).toBe('voided');
  });

  it('the discard holds after a failed submission and a restart: a reopened engine never allocates the numbers and can retry', async () => {
    const h = await annulHarness();
    h.sandbox.control.script({ outcomes: [{ kind: 'http5xx' }] });
    const failed = await annul(h, [line(32, 1, 3), line(32, 5, 5)]);
    expect(failed.status).toBe('failed');
    await h.engine.close();

    const reopened = await openEngine({ dataDir: h.engine.dataDir, clock: h.engine.clock });
    try {
      expect(await take(h, 32, 3, reopened)).toEqual(['E320000000004', 'E320000000006', 'E320000000007']);
      const [listed] = await listAnnulments(reopened, h.tenant.id);
      expect(listed).toMatchObject({ id: failed.id, status: 'failed', totalCount: 4 });
      const voided = await retryAnnulment(reopened, h.tenant.id, failed.id);
      expect(voided).toMatchObject({ status: 'voided', attempts: 2 });
      expect(h.sandbox.control.annulments()[0]!.xml).toBe((await storedAnecf(reopened, failed.id)).xml);
    } finally {
      await reopened.close();
    }
  });

  it('a send cut short by a stopped process reads as sending, then failed once its lease is over; retry then sends it', async () => {
    const h = await annulHarness({ timeoutMs: 1000 });
    h.sandbox.control.script({ outcomes: [{ kind: 'http5xx' }] });
    const record = await annul(h, [line(46, 1, 2)]);
    // What a process that died between the send and its answer leaves behind: status sending, a lease.
    const until = new Date(h.engine.clock.now().getTime() + 6_000).toISOString();
    await h.engine.db.updateTable('annulments').set({ status: 'sending', sending_until: until, last_error: null }).where('id', '=', record.id).execute();

    expect(await getAnnulment(h.engine, h.tenant.id, record.id)).toMatchObject({ status: 'sending', lastError: null });
    await expect(retryAnnulment(h.engine, h.tenant.id, record.id)).rejects.toMatchObject({ kind: 'conflict', code: 'Annulment.InProgress' });

    h.engine.clock.advance(6_000); // six calls of the 1 s client timeout
    expect(await getAnnulment(h.engine, h.tenant.id, record.id)).toMatchObject({ status: 'failed', lastError: expect.stringContaining('interrupted') });
    const voided = await retryAnnulment(h.engine, h.tenant.id, record.id);
    expect(voided).toMatchObject({ status: 'voided', attempts: 2 });
  });

  it('an authority refusal is recorded as rejected with its code and messages; the numbers stay discarded; retry may send again', async () => {
    const h = await annulHarness();
    h.sandbox.control.script({
      encf: 'E430000000100',
      outcomes: [{ kind: 'reject', messages: [{ code: 2001, value: 'No fue posible anular las siguientes secuencias: E430000000100' }] }],
    });
    const rejected = await annul(h, [line(43, 100, 150)]);
    expect(rejected).toMatchObject({
      status: 'rejected',
      taxauthCode: '2001',
      taxauthMessages: ['No fue posible anular las siguientes secuencias: E430000000100'],
      lastError: null,
      submittedAt: '2026-03-10T10:00:00.000-04:00',
      voidedAt: null,
    });
    await expect(annul(h, [line(43, 120, 120)])).rejects.toMatchObject({ code: 'Validation.Failed' });
    const voided = await retryAnnulment(h.engine, h.tenant.id, rejected.id);
    expect(voided).toMatchObject({ status: 'voided', attempts: 2, taxauthCode: '15' });
  });

  it('a lost answer is a failure; if the first send did arrive, the resend is refused as used and recorded so (the authority has no annulment query)', async () => {
    const h = await annulHarness();
    h.sandbox.control.script({ outcomes: [{ kind: 'lostResponse' }] });
    const failed = await annul(h, [line(44, 1, 10)]);
    expect(failed.status).toBe('failed');
    const again = await retryAnnulment(h.engine, h.tenant.id, failed.id);
    expect(again).toMatchObject({ status: 'rejected', taxauthMessages: ['Las secuencias que está intentando anular han sido utilizadas.'] });
    expect(h.sandbox.control.annulments().map((a) => a.annulled)).toEqual([true, false]);
  });

  it('retry: 404 for an unknown or another tenant’s annulment', async () => {
    const h = await annulHarness();
    const record = await annul(h, [line(47, 1, 1)]);
    await expect(retryAnnulment(h.engine, h.tenant.id, '0b9f6a4e-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'Annulment.NotFound' });
    await expect(retryAnnulment(h.engine, h.tenant.id, 'nonsense')).rejects.toMatchObject({ code: 'Annulment.NotFound' });
    const { seedIssuer } = await import('../../helpers.js');
    const other = await seedIssuer(h.engine);
    await expect(retryAnnulment(h.engine, other.tenant.id, record.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(getAnnulment(h.engine, other.tenant.id, record.id)).rejects.toMatchObject({ kind: 'not_found' });
    expect(await listAnnulments(h.engine, other.tenant.id)).toEqual([]);
  });

  it('an e-CF with an external e-NCF cannot take an annulled number', async () => {
    const h = await annulHarness();
    await annul(h, [line(31, 40, 50)]);
    await setSetting(h.engine, 'sequences.mode', 'external', h.tenant.id);
    const external = (encf: string) => invoice31({ encf, sequenceExpiresOn: '2035-12-31' });
    await expect(issueEcf(h.engine, h.tenant.id, { idempotencyKey: 'x1', payload: external('E310000000045') })).rejects.toMatchObject({
      kind: 'conflict',
      code: 'Ecf.EncfAnnulled',
    });
    const ok = await issueEcf(h.engine, h.tenant.id, { idempotencyKey: 'x2', payload: external('E310000000051') });
    expect(ok.ecf.encf).toBe('E310000000051');
  });
});

describe('an annulment’s exchange with the authority has no ladder', () => {
  it('a busy authority (503) fails the annulment at once with the answer; the person retries it', async () => {
    const h = await annulHarness();
    h.sandbox.control.script({ outcomes: [{ kind: 'http5xx', status: 503 }] });
    const failed = await annul(h, [line(45, 1, 5)]);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, taxauthCode: null, submittedAt: null });
    expect(failed.lastError).toContain('HTTP 503 (anulacionrangos)');
    expect(h.sandbox.control.annulments()).toEqual([]);
    expect(await retryAnnulment(h.engine, h.tenant.id, failed.id)).toMatchObject({ status: 'voided', attempts: 2, lastError: null });
  });

  it('a damaged taxauth_messages column reads as Store.ColumnDamaged, naming the row', async () => {
    const h = await annulHarness();
    const record = await annul(h, [line(46, 1, 1)]);
    await h.engine.db.updateTable('annulments').set({ taxauth_messages: '{"not":"a list"}' }).where('id', '=', record.id).execute();
    await expect(getAnnulment(h.engine, h.tenant.id, record.id)).rejects.toMatchObject({ code: 'Store.ColumnDamaged', where: `annulments.taxauth_messages of ${record.id}` });
    await expect(listAnnulments(h.engine, h.tenant.id)).rejects.toMatchObject({ code: 'Store.ColumnDamaged' });
  });
});
