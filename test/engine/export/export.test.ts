import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { revokeCertificate, listCertificates } from '../../../src/engine/certificates/certificates.js';
import { exportPeriod, exportPeriodFile, verifyExport } from '../../../src/engine/export/index.js';
import { EngineError } from '../../../src/engine/errors.js';
import { appendJournal } from '../../../src/engine/journal/index.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { tempDir } from '../../helpers.js';
import { periodWithEveryDocument } from './period-fixture.js';

const SLOW = 60_000;

const unzipList = (file: string) => execFileSync('zipinfo', ['-1', file], { encoding: 'utf8' }).trim().split('\n');
const unzipRead = (file: string, name: string) => execFileSync('unzip', ['-p', file, name]);

/** Rewrites the archive with Python's zipfile (a writer independent of the one under test). */
function rewrite(file: string, out: string, edit: 'change' | 'remove' | 'add', name: string) {
  const script = `
import sys, zipfile
src, out, edit, name = sys.argv[1:5]
with zipfile.ZipFile(src) as z, zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as w:
    for i in z.infolist():
        data = z.read(i.filename)
        if i.filename == name and edit == 'remove':
            continue
        if i.filename == name and edit == 'change':
            data = data.replace(b'<MontoTotal>', b'<MontoTotal>1', 1)
        w.writestr(i.filename, data)
    if edit == 'add':
        w.writestr(name, b'<extra/>')
`;
  execFileSync('python3', ['-c', script, file, out, edit, name]);
}

describe('the period export', () => {
  it('writes every document of the month as stored, the ledger and a signed manifest; unzip, xmlsec1 and ecf export verify agree', async () => {
    const { h, e31, e32, e34, annulment, issuerRnc, received } = await periodWithEveryDocument();
    const dir = tempDir('ecf-export-');
    const file = join(dir, 'marzo.zip');
    const report = await exportPeriodFile(h.engine, h.tenant.id, exportPeriod({ month: '2026-03' }), file);
    expect(report).toMatchObject({ issued: 3, annulments: 1, received: 1, approvals: 1 });
    expect(readdirSync(dir)).toEqual(['marzo.zip']); // nothing .partial left beside it

    // Debian's unzip is the oracle of the format.
    const tested = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    expect(tested.status, tested.stdout + tested.stderr).toBe(0);
    const rnc = h.tenant.rnc;
    expect(unzipList(file).sort()).toEqual([
      'annulments/' + annulment.id + '.xml',
      'approvals/' + e31.encf + '.131880681.acecf.xml',
      'certificate.pem',
      `issued/${rnc}/${e31.encf}.xml`,
      `issued/${rnc}/${e32.encf}.rfce.xml`,
      `issued/${rnc}/${e32.encf}.xml`,
      `issued/${rnc}/${e34.encf}.xml`,
      'ledger-issued.csv',
      'ledger-received.csv',
      'ledger.xlsx',
      'manifest.xml',
      `received/${issuerRnc}/${received.encf}.acecf.xml`,
      `received/${issuerRnc}/${received.encf}.arecf.xml`,
      `received/${issuerRnc}/${received.encf}.xml`,
    ].sort());

    // The exact bytes stored: the API's signed XML of the 31.
    const stored = await fetch(`${h.url}/api/v1/ecf/${e31.id}/xml`, { headers: { 'x-api-key': h.keys.consultor } });
    expect(stored.status).toBe(200);
    expect(unzipRead(file, `issued/${rnc}/${e31.encf}.xml`).toString('utf8')).toBe(await stored.text());
    expect(unzipRead(file, `received/${issuerRnc}/${received.encf}.xml`).toString('utf8')).toBe(received.xml);

    // The ledger: one row per e-CF, the note naming the e-NCF it modifies, amounts from the XML.
    const issuedCsv = unzipRead(file, 'ledger-issued.csv').toString('utf8').trim().split('\r\n');
    expect(issuedCsv).toHaveLength(4);
    const header = issuedCsv[0]!.split(',');
    const row34 = issuedCsv.find((l) => l.startsWith(e34.encf))!.split(',');
    expect(row34[header.indexOf('modifiesEncf')]).toBe(e31.encf);
    expect(row34[header.indexOf('type')]).toBe('34');
    const row31 = issuedCsv.find((l) => l.startsWith(e31.encf))!.split(',');
    expect(row31[header.indexOf('total')]).toBe(e31.montoTotal.toFixed(2));
    expect(row31[header.indexOf('counterpartRnc')]).toBe('131880681');
    const receivedCsv = unzipRead(file, 'ledger-received.csv').toString('utf8').trim().split('\r\n');
    expect(receivedCsv.map((l) => l.split(',')[0])).toEqual(['eNCF', received.encf]);
    expect(receivedCsv[1]!.split(',')[header.indexOf('counterpartRnc')]).toBe(issuerRnc);

    // The manifest verifies with xmlsec1 alone, with the certificate the export carries.
    writeFileSync(join(dir, 'manifest.xml'), unzipRead(file, 'manifest.xml'));
    writeFileSync(join(dir, 'certificate.pem'), unzipRead(file, 'certificate.pem'));
    const xmlsec = spawnSync('xmlsec1', ['--verify', '--insecure', '--pubkey-cert-pem', join(dir, 'certificate.pem'), join(dir, 'manifest.xml')], { encoding: 'utf8' });
    expect(xmlsec.status, xmlsec.stdout + xmlsec.stderr).toBe(0);
    expect(xmlsec.stderr).toContain('OK');
    const manifest = readFileSync(join(dir, 'manifest.xml'), 'utf8');
    expect(manifest).toContain(`<Name>issued/${rnc}/${e31.encf}.xml</Name>`);
    expect(manifest).toMatch(/<Journal><Seq>\d+<\/Seq><Link>[0-9a-f]{16}<\/Link><\/Journal>/);

    const verified = await verifyExport(file);
    expect(verified.problems).toEqual([]);
    expect(verified).toMatchObject({ ok: true, manifestSignature: 'valid', ledgerRows: 4 });
    expect(verified.signaturesChecked).toBe(9);

    // A changed, a removed and an added file are each named.
    const issuedName = `issued/${rnc}/${e31.encf}.xml`;
    for (const [edit, name, says] of [
      ['change', issuedName, /changed/],
      ['remove', `received/${issuerRnc}/${received.encf}.arecf.xml`, /missing/],
      ['add', 'issued/extra.xml', /extra/],
    ] as const) {
      const tampered = join(dir, `${edit}.zip`);
      rewrite(file, tampered, edit, name);
      const bad = await verifyExport(tampered);
      expect(bad.ok, edit).toBe(false);
      expect(bad.problems.find((p) => p.file === name)?.problem, edit).toMatch(says);
    }
    // The changed document also breaks its own signature and its ledger row.
    const changed = await verifyExport(join(dir, 'change.zip'));
    expect(changed.problems.map((p) => p.file)).toEqual(expect.arrayContaining([issuedName, 'ledger-issued.csv']));
    expect(changed.problems.find((p) => p.file === 'ledger-issued.csv')?.problem).toContain(`e-NCF ${e31.encf}`);
  }, SLOW);

  it('the month\'s closing in the manifest, verbatim; the XLSX sheets with totals; a changed ledger row or manifest is named; no active certificate is refused, naming the rule, and leaves no file', async () => {
    const { h, e31, e34 } = await periodWithEveryDocument();
    const dir = tempDir('ecf-export-');
    const file = join(dir, 'marzo.zip');
    // A closing of March (the journal's closings write these; kind closing.month, its data JSON text), and one of February that is not this export's.
    // Read through the closing's schema, so each has its fields; the signature's characters show the text is carried verbatim, escaped.
    const key = await tenantKey(h.engine.db, h.tenant.id);
    const closingOf = (period: string, signature: string | null) =>
      JSON.stringify({ v: 1, kind: 'month', period, from: 0, to: 1, issued: [], perpetual: [], lockedHead: { seq: 1, hash: 'ab' }, previous: { day: null, month: null }, certificate: null, signature });
    const closing = closingOf('2026-03', 'a < b & "c"');
    await inTransaction(h.engine.db, async (tx) => {
      appendJournal(tx, h.engine.clock.now(), { tenantKey: key, kind: 'closing.month', data: closingOf('2026-02', null) });
      appendJournal(tx, h.engine.clock.now(), { tenantKey: key, kind: 'closing.month', data: closing });
    });
    const last = await h.engine.db.selectFrom('journal').select(['seq', 'link']).where('tenant_key', '=', key).orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow();
    const report = await exportPeriodFile(h.engine, h.tenant.id, exportPeriod({ month: '2026-03' }), file);
    expect(report.journal).toEqual({ seq: Number(last.seq), link: Buffer.from(last.link).toString('hex'), closing });
    const manifestText = unzipRead(file, 'manifest.xml').toString('utf8');
    expect(manifestText).toContain(`<Closing>${closing.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</Closing>`);
    expect(manifestText).toContain('<Count><Section>issued</Section><Type>34</Type><Documents>1</Documents>');

    const { default: Excel } = await import('exceljs');
    const book = new Excel.Workbook();
    await book.xlsx.load(unzipRead(file, 'ledger.xlsx') as never);
    expect(book.worksheets.map((w) => w.name)).toEqual(['Issued', 'Received']);
    const issued = book.getWorksheet('Issued')!;
    expect(issued.rowCount).toBe(5); // header, three e-CF, totals
    const totalColumn = (issued.getRow(1).values as string[]).indexOf('total');
    const sum = [2, 3, 4].reduce((s, r) => s + Math.round(Number(issued.getRow(r).getCell(totalColumn).value) * 100), 0);
    expect(issued.getRow(5).getCell(1).value).toBe('TOTAL (3)');
    expect(Math.round(Number(issued.getRow(5).getCell(totalColumn).value) * 100)).toBe(sum);
    expect(String(issued.getRow(4).getCell(1).value)).toBe(e34.encf);

    const script = `
import sys, zipfile
src, out, target = sys.argv[1:4]
with zipfile.ZipFile(src) as z, zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as w:
    for i in z.infolist():
        data = z.read(i.filename)
        if i.filename == target:
            data = data.replace(b'${e31.encf},31', b'${e31.encf},32', 1) if target.endswith('.csv') else data.replace(b'<RNC>', b'<RNC>9', 1)
        w.writestr(i.filename, data)
`;
    execFileSync('python3', ['-c', script, file, join(dir, 'ledger.zip'), 'ledger-issued.csv']);
    const ledger = await verifyExport(join(dir, 'ledger.zip'));
    expect(ledger.problems.find((p) => p.file === 'ledger-issued.csv' && /does not agree/.test(p.problem))?.problem).toContain('type');
    execFileSync('python3', ['-c', script, file, join(dir, 'manifest.zip'), 'manifest.xml']);
    const manifest = await verifyExport(join(dir, 'manifest.zip'));
    expect(manifest.manifestSignature).toBe('invalid');
    expect(manifest.problems.find((p) => p.file === 'manifest.xml')?.problem).toMatch(/changed after signing/);

    // The walk runs in a thread of its own: what goes wrong there comes back as the same EngineError, and nothing is left.
    // A closing entry that does not read as a closing is named, not passed over as if the month had none.
    const damaged = join(dir, 'damaged.zip');
    await h.engine.db.updateTable('journal').set({ data: '{"period":"2026-03"}' }).where('seq', '=', last.seq).where('tenant_key', '=', key).execute();
    const unreadClosing = await exportPeriodFile(h.engine, h.tenant.id, exportPeriod({ month: '2026-03' }), damaged).catch((e: unknown) => e);
    expect(unreadClosing).toMatchObject({ kind: 'damaged', code: 'Store.ColumnDamaged', message: expect.stringContaining(`journal.data of closing entry ${Number(last.seq)}`) });
    expect(readdirSync(dir).filter((f) => f.startsWith('damaged'))).toEqual([]);
    await h.engine.db.updateTable('journal').set({ data: closing }).where('seq', '=', last.seq).where('tenant_key', '=', key).execute();

    const { store_key } = await h.engine.db.selectFrom('ecf').select('store_key').where('id', '=', e34.id).executeTakeFirstOrThrow();
    await h.engine.db.updateTable('ecf_documents').set({ xml: Buffer.from('not the signed e-CF') }).where('ecf_key', '=', store_key).execute();
    const thrown = await exportPeriodFile(h.engine, h.tenant.id, exportPeriod({ month: '2026-03' }), damaged).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(EngineError);
    expect(thrown).toMatchObject({ kind: 'damaged', code: 'Store.DocumentDamaged', message: expect.stringContaining(e34.encf) });
    expect(readdirSync(dir).filter((f) => f.startsWith('damaged'))).toEqual([]);

    for (const c of await listCertificates(h.engine, h.tenant.id)) await revokeCertificate(h.engine, h.tenant.id, c.id);
    const none = join(dir, 'none.zip');
    await expect(exportPeriodFile(h.engine, h.tenant.id, exportPeriod({ month: '2026-03' }), none)).rejects.toMatchObject({ code: 'Export.NoActiveCertificate', message: expect.stringMatching(/signed with the tenant's active certificate/) });
    expect(existsSync(none) || existsSync(`${none}.partial`)).toBe(false);
  }, SLOW);

  it('a period is a month or from/to days, named field by field when wrong', () => {
    expect(exportPeriod({ month: '2026-02' })).toMatchObject({ from: '2026-02-01', to: '2026-02-28', month: '2026-02', startMs: Date.parse('2026-02-01T04:00:00Z'), endMs: Date.parse('2026-03-01T04:00:00Z') });
    expect(exportPeriod({ from: '2026-10-01', to: '2026-10-31' }).month).toBe('2026-10');
    expect(exportPeriod({ from: '2026-10-05', to: '2026-10-05' })).toMatchObject({ month: null, endMs: Date.parse('2026-10-06T04:00:00Z') });
    const field = (input: object) => {
      try {
        exportPeriod(input);
        return null;
      } catch (e) {
        return (e as { errors: { path: string; code: string }[] }).errors[0];
      }
    };
    expect(field({ month: '2026-13' })).toMatchObject({ path: 'month', code: 'Export.MonthFormat' });
    expect(field({})).toMatchObject({ path: 'month', code: 'Export.PeriodMissing' });
    expect(field({ from: '2026-02-30', to: '2026-03-01' })).toMatchObject({ path: 'from', code: 'Export.DayFormat' });
    expect(field({ from: '2026-03-02', to: '2026-03-01' })).toMatchObject({ path: 'to', code: 'Export.PeriodOrder' });
    expect(field({ month: '2026-03', from: '2026-03-01' })).toMatchObject({ path: 'month', code: 'Export.PeriodTwice' });
  });
});
