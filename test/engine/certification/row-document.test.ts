import { X509Certificate, createPrivateKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { CaseRefused, buildCase, type BuiltCase } from '../../../src/engine/certification/case-document.js';
import { kindOfType, type WorkbookKind } from '../../../src/engine/certification/columns.js';
import { approvalData, rowData } from '../../../src/engine/certification/row-document.js';
import { readPaso2Workbook, readPaso3Workbook, type WorkbookRow } from '../../../src/engine/certification/workbook.js';
import { securityCode, signatureTimestamp, signingKey } from '../../../src/engine/signing/xmldsig.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import { certificationWorkbooks } from '../../../src/sandbox/certification/workbooks.js';
import { makeIdentity } from '../../certs.js';
import { verifyWithXmlsec1 } from '../signing/verify-tools.js';

const identity = makeIdentity();
const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));
const SIGNED_AT = new Date('2026-11-25T15:30:00.000Z');

interface Built {
  readonly row: WorkbookRow;
  readonly kind: WorkbookKind;
  readonly built: BuiltCase;
}

const sets: Record<'section8' | 'full', { ecf: Built[]; rfce: Built[]; acecf: Built[] }> = {} as never;

beforeAll(async () => {
  for (const variant of ['section8', 'full'] as const) {
    const { paso2, paso3 } = await certificationWorkbooks({ rnc: '999000001', variant });
    const w2 = await readPaso2Workbook(paso2);
    const w3 = await readPaso3Workbook(paso3);
    expect(w2.problems).toEqual([]);
    expect(w3.problems).toEqual([]);
    const ecf = w2.rows.filter((r) => r.sheet === 'ECF').map((row) => {
      const kind = kindOfType(row.cells.TipoeCF!)!;
      return { row, kind, built: buildCase({ kind, cells: row.cells, key, signedAt: SIGNED_AT, where: `ECF row ${row.row}` }) };
    });
    const rfce = w2.rows.filter((r) => r.sheet === 'RFCE').map((row) => {
      const full = ecf.find((e) => e.row.cells.ENCF === row.cells.ENCF)!;
      return { row, kind: 'rfce' as const, built: buildCase({ kind: 'rfce', cells: row.cells, key, signedAt: SIGNED_AT, securityCode: full.built.securityCode }) };
    });
    const acecf = w3.rows.map((row) => ({ row, kind: 'acecf' as const, built: buildCase({ kind: 'acecf', cells: row.cells, key, signedAt: SIGNED_AT }) }));
    sets[variant] = { ecf, rfce, acecf };
  }
}, 60_000);

describe.each(['section8', 'full'] as const)('every case of the %s set', (variant) => {
  it('builds, signs and passes the authority’s XSD (e-CF, RFCE and ACECF)', () => {
    const { ecf, rfce, acecf } = sets[variant];
    expect(ecf.length).toBe(variant === 'full' ? 25 : 8);
    expect(rfce.length).toBe(variant === 'full' ? 4 : 1);
    expect(acecf.length).toBe(variant === 'full' ? 11 : 4);
    for (const c of [...ecf, ...rfce, ...acecf]) {
      expect(validateAgainstSchema(c.kind, c.built.xml), `${c.row.sheet} row ${c.row.row}`).toEqual({ valid: true, errors: [] });
    }
  });

  it('adds only FechaHoraFirma (the signing time) and the Signature to an e-CF', () => {
    for (const { built } of sets[variant].ecf) {
      expect(built.xml).toContain(`<FechaHoraFirma>${signatureTimestamp(SIGNED_AT)}</FechaHoraFirma><Signature xmlns="http://www.w3.org/2000/09/xmldsig#">`);
      expect(built.securityCode).toBe(securityCode(built.signatureValue));
    }
  });

  it('puts the signed full e-CF 32’s code in each RFCE', () => {
    for (const r of sets[variant].rfce) {
      const full = sets[variant].ecf.find((e) => e.row.cells.ENCF === r.row.cells.ENCF)!;
      expect(r.built.xml).toContain(`<CodigoSeguridadeCF>${full.built.signatureValue.slice(0, 6)}</CodigoSeguridadeCF>`);
      expect(r.built.securityCode).toBe(full.built.securityCode);
      expect(r.built.xml).not.toContain('FechaHoraFirma');
    }
  });

  it('sends each approval exactly as given: FechaHoraAprobacionComercial from the row, MontoTotal with 2 decimals', () => {
    for (const a of sets[variant].acecf) {
      expect(a.built.xml).toContain('<FechaHoraAprobacionComercial>23-06-2026 17:45:47</FechaHoraAprobacionComercial>');
      expect(a.built.xml).toMatch(/<MontoTotal>\d+\.\d\d<\/MontoTotal>/);
      expect(a.built.xml).not.toContain(signatureTimestamp(SIGNED_AT));
      if (a.row.cells.Estado === '1') expect(a.built.xml).not.toContain('DetalleMotivoRechazo');
    }
  });
});

describe('the §8 cases as XML', () => {
  const xmlOf = (encf: string) => sets.section8.ecf.find((c) => c.row.cells.ENCF === encf)!.built.xml;

  it('carry the values as written and no element for a #e cell', () => {
    expect(xmlOf('E310000000001')).toContain('<PrecioUnitarioItem>500.0000</PrecioUnitarioItem>');
    expect(xmlOf('E310000000001')).toContain('<eNCF>E310000000001</eNCF>');
    expect(xmlOf('E310000000001')).not.toContain('<ENCF>');
    expect(xmlOf('E430000000001')).not.toContain('<Comprador>');
    expect(xmlOf('E340000000001')).toContain('<IndicadorNotaCredito>0</IndicadorNotaCredito>');
    expect(xmlOf('E340000000001')).not.toContain('FechaVencimientoSecuencia');
    expect(xmlOf('E320000000001')).not.toContain('FechaVencimientoSecuencia');
    // Nothing the row does not hold: no defaults such as IndicadorMontoGravado on the 43 or TipoIngresos on the 41.
    expect(xmlOf('E430000000001')).not.toContain('IndicadorMontoGravado');
    expect(xmlOf('E410000000001')).not.toContain('TipoIngresos');
    for (const c of sets.section8.ecf) expect(c.built.xml).not.toContain('>#e<');
  });

  it('verify with xmlsec1 (an e-CF, the RFCE and an ACECF)', () => {
    for (const xml of [xmlOf('E310000000001'), sets.section8.rfce[0]!.built.xml, sets.section8.acecf[0]!.built.xml]) {
      const result = verifyWithXmlsec1(xml, identity.certPem);
      expect(result.ok, result.output).toBe(true);
    }
  });
});

describe('a row that cannot be sent is reported before anything is sent', () => {
  const row5 = () => ({ ...sets.section8.ecf.find((c) => c.row.cells.ENCF === 'E310000000001')!.row.cells });

  const refusal = (run: () => unknown): CaseRefused => {
    try {
      run();
    } catch (e) {
      if (e instanceof CaseRefused) return e;
      throw e;
    }
    throw new Error('expected CaseRefused');
  };

  it('a value the XSD refuses (NombreItem longer than 80) comes back with the schema’s message and the row', () => {
    const cells = { ...row5(), 'NombreItem[1]': 'S'.repeat(81) };
    const e = refusal(() => buildCase({ kind: 'ecf31', cells, key, signedAt: SIGNED_AT, where: 'ECF row 5' }));
    expect(e.code).toBe('Certification.CaseInvalid');
    expect(e.message).toMatch(/^ECF row 5: the e-CF 31 of this row cannot be sent: /);
    expect(e.problems).toEqual([{ message: expect.stringMatching(/NombreItem.*maxLength.*81.*80/) }]);
  });

  it('a required element the row lacks (RazonSocialComprador of a 31) is the schema’s complaint too', () => {
    const cells = row5();
    delete cells.RazonSocialComprador;
    const e = refusal(() => buildCase({ kind: 'ecf31', cells, key, signedAt: SIGNED_AT }));
    expect(e.problems[0]!.message).toContain('RazonSocialComprador');
  });

  it('cells with no place in the document, gaps in numbered groups and FechaHoraFirma in the row are refused', () => {
    const cells: Record<string, string> = { ...row5(), IndicadorNotaCredito: '0', 'TelefonoEmisor[3]': '809-000-0003', 'NumeroLinea[4]': '4', FechaHoraFirma: '01-01-2020 00:00:00' };
    delete cells['TelefonoEmisor[2]'];
    const { problems } = rowData('ecf31', cells);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ column: 'IndicadorNotaCredito', message: expect.stringContaining('e-CF 31 has no element IndicadorNotaCredito') }),
        expect.objectContaining({ column: 'FechaHoraFirma', message: expect.stringContaining('added when the case is signed') }),
        { message: expect.stringContaining('TelefonoEmisor 3 is filled but TelefonoEmisor 2 is empty') },
        { message: expect.stringContaining('Item 4 is filled but Item 3 is empty') },
      ]),
    );
    expect(problems).toHaveLength(4);
    expect(() => buildCase({ kind: 'ecf31', cells, key, signedAt: SIGNED_AT })).toThrow(CaseRefused);
  });

  it('an RFCE without the full e-CF 32’s code, or with a code of the wrong length, is refused', () => {
    const cells = { ...sets.section8.rfce[0]!.row.cells };
    expect(refusal(() => buildCase({ kind: 'rfce', cells, key, signedAt: SIGNED_AT })).message).toContain('needs the security code');
    expect(refusal(() => buildCase({ kind: 'rfce', cells, key, signedAt: SIGNED_AT, securityCode: 'abc' })).message).toContain('6 characters');
  });

  it('approvalData is the ACECF row verbatim', () => {
    const row = sets.section8.acecf[3]!.row;
    expect(approvalData(row.cells)).toEqual({
      data: {
        DetalleAprobacionComercial: {
          Version: '1.0', RNCEmisor: '131880681', eNCF: 'E310000000001', FechaEmision: '01-04-2020', MontoTotal: '1430.00', RNCComprador: '999000001',
          Estado: '2', DetalleMotivoRechazo: 'Precio incorrecto', FechaHoraAprobacionComercial: '23-06-2026 17:45:47',
        },
      },
      problems: [],
    });
  });
});
