import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ECF_SHEET_HEADERS, RFCE_SHEET_HEADERS, resolveColumn } from '../../../src/engine/certification/columns.js';
import { rowData } from '../../../src/engine/certification/row-document.js';
import {
  readCertificationWorkbook,
  readPaso2Workbook,
  readPaso3Workbook,
  type Paso2Workbook,
  type Paso3Workbook,
} from '../../../src/engine/certification/workbook.js';
import { EngineError } from '../../../src/engine/errors.js';
import type { XmlData } from '../../../src/engine/xml/canonical.js';
import { certificationRows, certificationWorkbooks, workbooksFromRows } from '../../../src/sandbox/certification/workbooks.js';

const RNC_A = '999000001';
const RNC_B = '999000002';

let section8: { paso2: Buffer; paso3: Buffer };
let paso2: Paso2Workbook;
let paso3: Paso3Workbook;

beforeAll(async () => {
  section8 = await certificationWorkbooks({ rnc: RNC_A, counterpart: RNC_B, variant: 'section8' });
  paso2 = await readPaso2Workbook(section8.paso2);
  paso3 = await readPaso3Workbook(section8.paso3);
});

const ecfRow = (encf: string) => paso2.rows.find((r) => r.sheet === 'ECF' && r.cells.ENCF === encf)!;
const dataOf = (encf: string): XmlData => {
  const row = ecfRow(encf);
  return rowData(`ecf${row.cells.TipoeCF}` as 'ecf31', row.cells).data;
};
const part = (data: XmlData, ...path: string[]): unknown => path.reduce<unknown>((d, k) => (d as XmlData | undefined)?.[k], data);

async function edit(buffer: Buffer, change: (book: ExcelJS.Workbook) => void): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(buffer as unknown as ExcelJS.Buffer);
  change(book);
  return Buffer.from((await book.xlsx.writeBuffer()) as ArrayBuffer);
}

const errorOf = async (p: Promise<unknown>): Promise<EngineError> => {
  try {
    await p;
  } catch (e) {
    return e as EngineError;
  }
  throw new Error('expected a refusal');
};

describe('the synthetic Paso 2 workbook of CERTIFICATION.md §8', () => {
  it('has DGII’s layout: sheets ECF then RFCE, all 5,215 and 56 headers in order, text cells, #e where unused, panes frozen at B2, autofilter on row 1', async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(section8.paso2 as unknown as ExcelJS.Buffer);
    expect(book.worksheets.map((w) => w.name)).toEqual(['ECF', 'RFCE']);
    const ecf = book.getWorksheet('ECF')!;
    expect(ECF_SHEET_HEADERS).toHaveLength(5215);
    expect(RFCE_SHEET_HEADERS).toHaveLength(56);
    expect((ecf.getRow(1).values as unknown[]).slice(1)).toEqual(ECF_SHEET_HEADERS);
    expect(ECF_SHEET_HEADERS).toContain('NumeroContenedor ');
    expect(ECF_SHEET_HEADERS.filter((h) => h.startsWith('SubtotalImpuestoAdicionalPaginaTabla'))).toEqual(['SubtotalImpuestoAdicionalPaginaTabla[1]']);
    expect((book.getWorksheet('RFCE')!.getRow(1).values as unknown[]).slice(1)).toEqual(RFCE_SHEET_HEADERS);
    expect(ecf.views[0]).toMatchObject({ state: 'frozen', xSplit: 1, ySplit: 1, topLeftCell: 'B2' });
    expect(ecf.autoFilter).toBeTruthy();
    expect(ecf.rowCount).toBe(9);
    for (let r = 2; r <= ecf.rowCount; r++) {
      const values = (ecf.getRow(r).values as unknown[]).slice(1);
      expect(values).toHaveLength(5215);
      expect(values.every((v) => typeof v === 'string' && v !== '')).toBe(true);
      expect(values.filter((v) => v !== '#e').length).toBeGreaterThan(10);
    }
  });

  it('reads 8 e-CF cases in file order (not dependency order) and 1 RFCE bound to E320000000002, with no problem', () => {
    expect(paso2.problems).toEqual([]);
    const ecf = paso2.rows.filter((r) => r.sheet === 'ECF');
    expect(ecf.map((r) => [r.row, r.cells.ENCF])).toEqual([
      [2, 'E330000000001'], [3, 'E320000000001'], [4, 'E340000000001'], [5, 'E310000000001'],
      [6, 'E320000000002'], [7, 'E410000000001'], [8, 'E430000000001'], [9, 'E470000000001'],
    ]);
    const rfce = paso2.rows.filter((r) => r.sheet === 'RFCE');
    expect(rfce.map((r) => [r.row, r.cells.ENCF])).toEqual([[2, 'E320000000002']]);
    // Upload names are RNCEmisor + eNCF, which is what CasoPrueba holds.
    expect(ecf.map((r) => `${r.cells.CasoPrueba}.xml`)).toContain('999000001E310000000001.xml');
    for (const r of paso2.rows) expect(r.cells.CasoPrueba).toBe(`${r.cells.RNCEmisor}${r.cells.ENCF}`);
  });

  it('keeps only the cells that are not #e, values exactly as written', () => {
    for (const r of paso2.rows) expect(Object.values(r.cells)).not.toContain('#e');
    const e31 = ecfRow('E310000000001').cells;
    expect(e31['PrecioUnitarioItem[1]']).toBe('500.0000');
    expect(e31['CantidadItem[1]']).toBe('2.00');
    expect(ecfRow('E320000000002').cells['CantidadItem[1]']).toBe('2');
    expect(ecfRow('E430000000001').cells['CantidadItem[1]']).toBe('1');
    expect(e31['TelefonoEmisor[2]']).toBe('809-000-0002');
    expect(e31).not.toHaveProperty('TelefonoEmisor[3]');
    expect(ecfRow('E470000000001').cells.TipoCambio).toBe('60.0000');
  });

  it('maps rows to the right elements: ENCF → eNCF, no Comprador on the 43, IndicadorNotaCredito and no FechaVencimientoSecuencia on the 34, none on the 32', () => {
    expect(part(dataOf('E310000000001'), 'Encabezado', 'IdDoc', 'eNCF')).toBe('E310000000001');
    expect(part(dataOf('E310000000001'), 'Encabezado', 'Emisor', 'TablaTelefonoEmisor', 'TelefonoEmisor')).toEqual(['809-000-0001', '809-000-0002']);
    expect(part(dataOf('E430000000001'), 'Encabezado', 'Comprador')).toBeUndefined();
    expect(part(dataOf('E430000000001'), 'DetallesItems', 'Item')).toEqual([
      expect.objectContaining({ TablaCodigosItem: { CodigosItem: [{ TipoCodigo: 'Interno', CodigoItem: '0001' }] }, PrecioUnitarioItem: '500.0000' }),
    ]);
    expect(part(dataOf('E340000000001'), 'Encabezado', 'IdDoc', 'IndicadorNotaCredito')).toBe('0');
    expect(part(dataOf('E340000000001'), 'Encabezado', 'IdDoc', 'FechaVencimientoSecuencia')).toBeUndefined();
    expect(part(dataOf('E320000000001'), 'Encabezado', 'IdDoc', 'FechaVencimientoSecuencia')).toBeUndefined();
    expect(part(dataOf('E320000000001'), 'Encabezado', 'IdDoc', 'TablaFormasPago')).toEqual({ FormaDePago: [{ FormaPago: '1', MontoPago: '354000.00' }] });
    expect(part(dataOf('E410000000001'), 'DetallesItems', 'Item')).toEqual([
      expect.objectContaining({ Retencion: { IndicadorAgenteRetencionoPercepcion: '1', MontoITBISRetenido: '1800.00', MontoISRRetenido: '1000.00' } }),
    ]);
  });
});

describe('quirky headers', () => {
  it.each([
    ['NumeroContenedor ', 'ecf31', 'ECF/Encabezado/InformacionesAdicionales/NumeroContenedor'],
    ['MontosubRecargo[2][3]', 'ecf31', 'ECF/DetallesItems/Item[2]/TablaSubRecargo/SubRecargo[3]/MontoSubRecargo'],
    ['NumeroLineaDoR[2]', 'ecf31', 'ECF/DescuentosORecargos/DescuentoORecargo[2]/NumeroLinea'],
    ['NumeroLinea[2]', 'ecf31', 'ECF/DetallesItems/Item[2]/NumeroLinea'],
    ['TipoImpuesto[3]', 'ecf31', 'ECF/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional[3]/TipoImpuesto'],
    ['TipoImpuesto[4][2]', 'ecf31', 'ECF/DetallesItems/Item[4]/TablaImpuestoAdicional/ImpuestoAdicional[2]/TipoImpuesto'],
    ['TelefonoEmisor[3]', 'ecf31', 'ECF/Encabezado/Emisor/TablaTelefonoEmisor/TelefonoEmisor[3]'],
    ['MontoPago[7]', 'ecf31', 'ECF/Encabezado/IdDoc/TablaFormasPago/FormaDePago[7]/MontoPago'],
    ['TipoCodigo[1][3]', 'ecf43', 'ECF/DetallesItems/Item[1]/TablaCodigosItem/CodigosItem[3]/TipoCodigo'],
    ['Subcantidad[62][5]', 'ecf32', 'ECF/DetallesItems/Item[62]/TablaSubcantidad/SubcantidadItem[5]/Subcantidad'],
    ['SubTotaITBIS1', 'ecf31', 'ECF/Subtotales/Subtotal[1]/SubTotaITBIS1'],
    ['SubtotalOtrosImpuesto[2][1]', 'ecf31', 'ECF/Paginacion/Pagina[2]/SubtotalImpuestoAdicional/SubtotalOtrosImpuesto'],
    ['PesoNetoMineria[1]', 'ecf32', 'ECF/DetallesItems/Item[1]/Mineria/PesoNetoMineria'],
    ['ENCF', 'rfce', 'RFCE/Encabezado/IdDoc/eNCF'],
    ['TipoImpuesto[2]', 'rfce', 'RFCE/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional[2]/TipoImpuesto'],
    ['montosubrecargo[1][1]', 'ecf31', 'ECF/DetallesItems/Item[1]/TablaSubRecargo/SubRecargo[1]/MontoSubRecargo'],
    ['eNCF', 'acecf', 'ACECF/DetalleAprobacionComercial/eNCF'],
  ] as const)('%s (%s) → %s', (header, kind, xpath) => {
    const target = resolveColumn(kind, header);
    expect(target).toMatchObject({ type: 'element', xpath });
  });

  it('CasoPrueba is the case id, not an element; SubtotalImpuestoAdicionalPaginaTabla[1] has no element; too many telephones is out of range', () => {
    expect(resolveColumn('ecf31', 'CasoPrueba').type).toBe('case-id');
    expect(resolveColumn('ecf31', 'SubtotalImpuestoAdicionalPaginaTabla[1]').type).toBe('no-element');
    expect(resolveColumn('ecf31', 'TelefonoEmisor[4]')).toMatchObject({ type: 'unknown', reason: expect.stringContaining('at most 3') });
    expect(resolveColumn('ecf31', 'TipoImpuesto')).toMatchObject({ type: 'unknown', reason: expect.stringContaining('index') });
    expect(resolveColumn('ecf31', 'IndicadorNotaCredito')).toMatchObject({ type: 'unknown', reason: 'e-CF 31 has no element IndicadorNotaCredito' });
  });
});

describe('the synthetic Paso 3 workbook of §8.2', () => {
  it('writes MontoTotal and Estado as numbers and reads them back as 2-decimal and integer text', async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(section8.paso3 as unknown as ExcelJS.Buffer);
    expect(book.worksheets.map((w) => w.name)).toEqual(['ACEECF_Generadas']);
    const sheet = book.getWorksheet('ACEECF_Generadas')!;
    expect(typeof sheet.getCell('E2').value).toBe('number');
    expect(typeof sheet.getCell('G2').value).toBe('number');
    expect(paso3.problems).toEqual([]);
    expect(paso3.rows.map((r) => r.cells.MontoTotal)).toEqual(['1430.00', '100.00', '0.00', '1430.00']);
    expect(paso3.rows.map((r) => r.cells.Estado)).toEqual(['1', '1', '1', '2']);
  });

  it('copies FechaHoraAprobacionComercial verbatim, leaves DetalleMotivoRechazo out when Estado is 1, swaps the roles', () => {
    for (const r of paso3.rows) {
      expect(r.cells.FechaHoraAprobacionComercial).toBe('23-06-2026 17:45:47');
      expect(r.cells.RNCEmisor).toBe(RNC_B);
      expect(r.cells.RNCComprador).toBe(RNC_A);
      if (r.cells.Estado === '1') expect(r.cells).not.toHaveProperty('DetalleMotivoRechazo');
    }
    expect(paso3.rows[3]!.cells.DetalleMotivoRechazo).toBe('Precio incorrecto');
  });

  it('never names a 32, 41, 43, 46 or 47, in either synthetic set', async () => {
    const full = certificationRows({ rnc: RNC_A, variant: 'full' });
    for (const a of [...paso3.rows.map((r) => r.cells.eNCF!), ...full.approvals.map((a) => a.eNCF)]) {
      expect(['31', '33', '34', '44', '45']).toContain(a.slice(1, 3));
    }
  });
});

describe('the full synthetic set', () => {
  it('has the real composition: 4×31, 6×32 (2 ≥ 250,000), 1×33, 2×34, 2 of each other type; 4 RFCE; 11 approvals; notes before their originals', async () => {
    const { paso2: p2, paso3: p3 } = await certificationWorkbooks({ rnc: RNC_A, variant: 'full' });
    const w2 = await readPaso2Workbook(p2);
    const w3 = await readPaso3Workbook(p3);
    expect(w2.problems).toEqual([]);
    expect(w3.problems).toEqual([]);
    const ecf = w2.rows.filter((r) => r.sheet === 'ECF');
    const count = (list: string[]) => list.reduce<Record<string, number>>((m, t) => ({ ...m, [t]: (m[t] ?? 0) + 1 }), {});
    expect(count(ecf.map((r) => r.cells.TipoeCF!))).toEqual({ '31': 4, '32': 6, '33': 1, '34': 2, '41': 2, '43': 2, '44': 2, '45': 2, '46': 2, '47': 2 });
    const big = ecf.filter((r) => r.cells.TipoeCF === '32' && Number(r.cells.MontoTotal) >= 250000);
    expect(big).toHaveLength(2);
    const rfce = w2.rows.filter((r) => r.sheet === 'RFCE');
    expect(rfce).toHaveLength(4);
    for (const r of rfce) {
      const full = ecf.find((e) => e.cells.ENCF === r.cells.ENCF)!;
      expect(Number(full.cells.MontoTotal)).toBeLessThan(250000);
      expect(r.cells.MontoTotal).toBe(full.cells.MontoTotal);
    }
    expect(count(w3.rows.map((r) => r.cells.eNCF!.slice(1, 3)))).toEqual({ '31': 4, '33': 1, '34': 2, '44': 2, '45': 2 });
    for (const a of w3.rows) {
      const original = ecf.find((e) => e.cells.ENCF === a.cells.eNCF)!;
      expect(a.cells.MontoTotal).toBe(original.cells.MontoTotal);
      expect(a.cells.FechaEmision).toBe(original.cells.FechaEmision);
    }
    const position = (encf: string) => ecf.findIndex((r) => r.cells.ENCF === encf);
    const notes = ecf.filter((r) => r.cells.NCFModificado);
    expect(notes.some((n) => position(n.cells.ENCF!) < position(n.cells.NCFModificado!))).toBe(true);
    for (const r of ecf) expect(r.cells.FechaEmision!.endsWith('-2020')).toBe(true);
    expect(ecf.some((r) => r.cells['NumeroContenedor '] !== undefined)).toBe(true);
  });

  it('shuffles rows with a seed, the same way every time', async () => {
    const a = certificationRows({ rnc: RNC_A, variant: 'full', shuffle: true, seed: 7 });
    const b = certificationRows({ rnc: RNC_A, variant: 'full', shuffle: true, seed: 7 });
    const plain = certificationRows({ rnc: RNC_A, variant: 'full' });
    expect(a.ecf.map((c) => c.ENCF)).toEqual(b.ecf.map((c) => c.ENCF));
    expect(a.ecf.map((c) => c.ENCF)).not.toEqual(plain.ecf.map((c) => c.ENCF));
    expect([...a.ecf.map((c) => c.ENCF)].sort()).toEqual([...plain.ecf.map((c) => c.ENCF)].sort());
  });
});

describe('values verbatim', () => {
  it('385.00 stays 385.00 (the §8 variant of row 5 with a sub-discount table)', async () => {
    const rows = certificationRows({ rnc: RNC_A, counterpart: RNC_B, variant: 'section8' });
    const row5 = rows.ecf.find((c) => c.ENCF === 'E310000000001')!;
    Object.assign(row5, {
      'DescuentoMonto[1]': '385.00', 'TipoSubDescuento[1][1]': '$', 'MontoSubDescuento[1][1]': '385.00', 'MontoItem[1]': '615.00',
      MontoGravadoTotal: '615.00', MontoGravadoI1: '615.00', TotalITBIS: '110.70', TotalITBIS1: '110.70', MontoTotal: '975.70',
    });
    const w = await readPaso2Workbook((await workbooksFromRows(rows)).paso2);
    expect(w.problems).toEqual([]);
    const cells = w.rows.find((r) => r.cells.ENCF === 'E310000000001')!.cells;
    expect(cells['DescuentoMonto[1]']).toBe('385.00');
    const item = (part(rowData('ecf31', cells).data, 'DetallesItems', 'Item') as XmlData[])[0]!;
    expect(item.DescuentoMonto).toBe('385.00');
    expect(item.TablaSubDescuento).toEqual({ SubDescuento: [{ TipoSubDescuento: '$', MontoSubDescuento: '385.00' }] });
  });
});

describe('what cannot be mapped is reported, with its row', () => {
  it('an unknown column filled in row 3, a value where the type has no element, a wrong ENCF prefix, a missing TipoeCF, a number cell', async () => {
    const changed = await edit(section8.paso2, (book) => {
      const ecf = book.getWorksheet('ECF')!;
      const extra = ECF_SHEET_HEADERS.length + 1;
      ecf.getRow(1).getCell(extra).value = 'ColumnaInventada';
      for (let r = 2; r <= ecf.rowCount; r++) ecf.getRow(r).getCell(extra).value = r === 3 ? 'X' : '#e';
      const col = (h: string) => ECF_SHEET_HEADERS.indexOf(h) + 1;
      ecf.getRow(5).getCell(col('IndicadorNotaCredito')).value = '1'; // a 31
      ecf.getRow(6).getCell(col('ENCF')).value = 'E310000000099'; // a 32
      ecf.getRow(7).getCell(col('TipoeCF')).value = '#e';
      ecf.getRow(8).getCell(col('MontoExento')).value = 500; // a number, not text
      ecf.getRow(9).getCell(col('SubtotalImpuestoAdicionalPaginaTabla[1]')).value = '1.00';
    });
    const w = await readPaso2Workbook(changed);
    const at = (row: number) => w.problems.filter((p) => p.sheet === 'ECF' && p.row === row);
    expect(at(3)).toEqual([expect.objectContaining({ column: 'ColumnaInventada', level: 'error', message: expect.stringContaining('e-CF 32 has no element ColumnaInventada') })]);
    expect(at(5)).toEqual([expect.objectContaining({ column: 'IndicadorNotaCredito', message: expect.stringContaining('e-CF 31 has no element IndicadorNotaCredito') })]);
    expect(at(6)).toContainEqual(expect.objectContaining({ column: 'ENCF', message: 'ENCF E310000000099 does not start with E32, the row’s TipoeCF.'.replace('’', "'") }));
    expect(at(7)).toContainEqual(expect.objectContaining({ column: 'TipoeCF', message: expect.stringContaining('TipoeCF is missing') }));
    expect(at(8)).toContainEqual(expect.objectContaining({ column: 'MontoExento', message: expect.stringContaining('holds the number 500') }));
    expect(at(9)).toContainEqual(expect.objectContaining({ column: 'SubtotalImpuestoAdicionalPaginaTabla[1]', message: expect.stringContaining('no element') }));
    // The RFCE of E320000000002 lost its full e-CF 32 (row 6 now says E310000000099).
    expect(w.problems).toContainEqual(expect.objectContaining({ sheet: 'RFCE', row: 2, column: 'ENCF', message: expect.stringContaining('no type-32 row') }));
    expect(w.rows.find((r) => r.row === 3)!.cells.ColumnaInventada).toBe('X');
  });

  it('an unknown column no row fills is a warning at the header; a missing RFCE sheet is an error', async () => {
    const changed = await edit(section8.paso2, (book) => {
      const ecf = book.getWorksheet('ECF')!;
      const extra = ECF_SHEET_HEADERS.length + 1;
      ecf.getRow(1).getCell(extra).value = 'OtraColumna';
      for (let r = 2; r <= ecf.rowCount; r++) ecf.getRow(r).getCell(extra).value = '#e';
      book.removeWorksheet(book.getWorksheet('RFCE')!.id);
    });
    const w = await readPaso2Workbook(changed);
    expect(w.problems).toEqual([
      expect.objectContaining({ sheet: 'RFCE', row: 0, level: 'error', message: expect.stringContaining('"RFCE" is missing') }),
      expect.objectContaining({ sheet: 'ECF', row: 1, column: 'OtraColumna', level: 'warning' }),
    ]);
  });
});

describe('consumo summaries that do not match their e-CF 32', () => {
  it('warn (the rows are still sent as given): a CasoPrueba that is not RNCEmisor + ENCF, an RFCE of a 32 at or above 250,000, a 32 under 250,000 without RFCE, different totals', async () => {
    const changed = await edit(section8.paso2, (book) => {
      book.getWorksheet('RFCE')!.getRow(2).getCell(RFCE_SHEET_HEADERS.indexOf('ENCF') + 1).value = 'E320000000001';
    });
    const w = await readPaso2Workbook(changed);
    expect(w.problems).toEqual([
      expect.objectContaining({ sheet: 'RFCE', row: 2, column: 'CasoPrueba', level: 'warning', message: expect.stringContaining('is not RNCEmisor + ENCF') }),
      expect.objectContaining({ sheet: 'RFCE', row: 2, column: 'ENCF', level: 'warning', message: expect.stringContaining('at or above 250,000.00') }),
      expect.objectContaining({ sheet: 'RFCE', row: 2, column: 'MontoTotal', level: 'warning', message: expect.stringContaining('MontoTotal 2360.00 but its e-CF 32 (ECF row 3) has 354000.00') }),
      expect.objectContaining({ sheet: 'ECF', row: 6, column: 'ENCF', level: 'warning', message: expect.stringContaining('E320000000002 is under 250,000.00 but has no row in sheet RFCE') }),
    ]);
  });
});

describe('files that are not the workbook', () => {
  it('refuses bytes that are not an .xlsx with Certification.WorkbookUnreadable', async () => {
    for (const bytes of [Buffer.from('CasoPrueba,Version\n1,1.0\n'), Buffer.alloc(0), Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])]) {
      const e = await errorOf(readPaso2Workbook(bytes));
      expect(e).toBeInstanceOf(EngineError);
      expect(e.code).toBe('Certification.WorkbookUnreadable');
      expect(e.message).toContain('not an .xlsx');
    }
  });

  it('refuses a corrupted .xlsx (a truncated ZIP) with the same clear error', async () => {
    const e = await errorOf(readPaso2Workbook(section8.paso2.subarray(0, 2000)));
    expect(e.code).toBe('Certification.WorkbookUnreadable');
    expect(e.message).toContain('cannot be read as an .xlsx');
  });

  it('a damaged part (its size in the ZIP directory is wrong) is refused in plain words, without the ZIP library\'s "Bug :"', async () => {
    const bytes = Buffer.from(section8.paso2);
    // The first central-directory entry: its uncompressed size (offset 24) no longer matches the data.
    const entry = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    expect(entry).toBeGreaterThan(0);
    bytes.writeUInt32LE(bytes.readUInt32LE(entry + 24) + 7, entry + 24);
    const e = await errorOf(readPaso2Workbook(bytes));
    expect(e.code).toBe('Certification.WorkbookUnreadable');
    expect(e.message).not.toMatch(/bug/i);
    expect(e.message).toBe(
      'The file cannot be read as an .xlsx workbook: it is damaged (a part of the ZIP package is not the size its directory says). Download it again from the certification portal.',
    );
  });

  it('tells the two workbooks apart by their sheets, and refuses a spreadsheet that is neither', async () => {
    expect((await errorOf(readPaso2Workbook(section8.paso3))).code).toBe('Certification.WrongWorkbook');
    expect((await errorOf(readPaso3Workbook(section8.paso2))).code).toBe('Certification.WrongWorkbook');
    expect((await readCertificationWorkbook(section8.paso3)).paso).toBe(3);
    expect((await readCertificationWorkbook(section8.paso2)).paso).toBe(2);
    const other = new ExcelJS.Workbook();
    other.addWorksheet('Hoja1').addRow(['a']);
    const e = await errorOf(readCertificationWorkbook(Buffer.from((await other.xlsx.writeBuffer()) as ArrayBuffer)));
    expect(e.code).toBe('Certification.WorkbookUnrecognized');
    expect(e.message).toContain('"Hoja1"');
  });
});
