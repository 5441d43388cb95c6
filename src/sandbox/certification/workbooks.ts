import type ExcelJS from 'exceljs';
import { ACECF_SHEET_HEADERS, ECF_SHEET_HEADERS, RFCE_SHEET_HEADERS, SHEETS } from '../../engine/certification/columns.js';

/**
 * Synthetic certification workbooks in the authority's exact layout
 * (CERTIFICATION.md §2.2, §2.3, §8): what the sandbox's certification mode
 * hands out and what the tests read. Every value is made up.
 *
 * - `section8`: exactly the rows of §8 (RNC_A → `rnc`, RNC_B → `counterpart`).
 * - `full`: a set with the real composition of §2.6 (25 e-CF rows, 4 RFCE
 *   rows, 11 approvals), amounts consistent under NOTES §12, FechaEmision
 *   in 2020, rows not in dependency order, values with DGII's text quirks
 *   (`500.0000`, `1`, `1.00`), and the quirky columns exercised
 *   (`NumeroContenedor `, `MontosubRecargo`, `NumeroLineaDoR`, header vs
 *   item `TipoImpuesto`, telephones, payment pairs, subtotal, pagination).
 *
 * Paso 2 cells are text, `#e` where unused; Paso 3 has numeric MontoTotal
 * and Estado and an empty DetalleMotivoRechazo unless Estado is 2.
 */

export type WorkbookVariant = 'section8' | 'full';

export interface CertificationWorkbookOptions {
  readonly rnc: string;
  /** DGII's fixed test counterpart (the buyer in Paso 2, the issuer in Paso 3). */
  readonly counterpart?: string;
  readonly variant: WorkbookVariant;
  /** Shuffle the rows of each sheet (seeded: the same seed gives the same order). */
  readonly shuffle?: boolean;
  readonly seed?: number;
}

/** A Paso 3 row: text cells, and MontoTotal / Estado as the numbers DGII writes. */
export interface ApprovalRow {
  readonly Version: string;
  readonly RNCEmisor: string;
  readonly eNCF: string;
  readonly FechaEmision: string;
  readonly MontoTotal: number;
  readonly RNCComprador: string;
  readonly Estado: number;
  readonly DetalleMotivoRechazo?: string;
  readonly FechaHoraAprobacionComercial: string;
}

export interface CertificationRows {
  /** Sheet ECF, in sheet order, cells by header exactly as written; only the used cells. */
  readonly ecf: Record<string, string>[];
  readonly rfce: Record<string, string>[];
  readonly approvals: ApprovalRow[];
}

export const DEFAULT_COUNTERPART = '131880681';
const FOREIGN_ID = '999000003';
const APPROVED_AT = '23-06-2026 17:45:47';

// ---- the rows

type Cells = Record<string, string>;

interface Line {
  readonly ind: string;
  readonly name: string;
  readonly bs: string;
  readonly qty: string;
  readonly unit?: string;
  readonly price: string;
  readonly amount: string;
  readonly extra?: Cells;
}

function item(i: number, l: Line): Cells {
  const c: Cells = {
    [`NumeroLinea[${i}]`]: String(i),
    [`IndicadorFacturacion[${i}]`]: l.ind,
    [`NombreItem[${i}]`]: l.name,
    [`IndicadorBienoServicio[${i}]`]: l.bs,
    [`CantidadItem[${i}]`]: l.qty,
    [`PrecioUnitarioItem[${i}]`]: l.price,
    [`MontoItem[${i}]`]: l.amount,
  };
  if (l.unit) c[`UnidadMedida[${i}]`] = l.unit;
  for (const [k, v] of Object.entries(l.extra ?? {})) c[k.replace('[i]', `[${i}]`)] = v;
  return c;
}

const items = (...lines: Line[]): Cells => Object.assign({}, ...lines.map((l, n) => item(n + 1, l)));

function common(rnc: string, tipo: string, encf: string, extra: Cells): Cells {
  return {
    CasoPrueba: rnc + encf,
    Version: '1.0',
    TipoeCF: tipo,
    ENCF: encf,
    TipoPago: '1',
    RNCEmisor: rnc,
    RazonSocialEmisor: 'EMISOR SINTETICO DE PRUEBA',
    DireccionEmisor: 'CALLE FICTICIA 1',
    FechaEmision: '01-04-2020',
    ...extra,
  };
}

function section8(rnc: string, buyer: string): CertificationRows {
  const b = { RNCComprador: buyer, RazonSocialComprador: 'COMPRADOR SINTETICO' };
  const ecf: Cells[] = [
    common(rnc, '33', 'E330000000001', {
      FechaVencimientoSecuencia: '31-12-2028', TipoIngresos: '01', FechaEmision: '02-04-2020', ...b, MontoExento: '100.00', MontoTotal: '100.00',
      ...items({ ind: '4', name: 'AJUSTE', bs: '1', qty: '1.00', price: '100.00', amount: '100.00' }),
      NCFModificado: 'E320000000001', FechaNCFModificado: '01-04-2020', CodigoModificacion: '3',
    }),
    common(rnc, '32', 'E320000000001', {
      IndicadorMontoGravado: '0', TipoIngresos: '01', 'FormaPago[1]': '1', 'MontoPago[1]': '354000.00', ...b,
      MontoGravadoTotal: '300000.00', MontoGravadoI1: '300000.00', ITBIS1: '18', TotalITBIS: '54000.00', TotalITBIS1: '54000.00', MontoTotal: '354000.00',
      ...items({ ind: '1', name: 'EQUIPO', bs: '1', qty: '1.00', unit: '43', price: '300000.00', amount: '300000.00' }),
    }),
    common(rnc, '34', 'E340000000001', {
      IndicadorNotaCredito: '0', TipoIngresos: '01', ...b, MontoTotal: '0.00', MontoNoFacturable: '1.00',
      ...items({ ind: '0', name: 'CORRECCION', bs: '2', qty: '1.00', price: '1.00', amount: '1.00' }),
      NCFModificado: 'E310000000001', FechaNCFModificado: '01-04-2020', CodigoModificacion: '2', RazonModificacion: 'Error en datos',
    }),
    common(rnc, '31', 'E310000000001', {
      FechaVencimientoSecuencia: '31-12-2028', IndicadorMontoGravado: '0', TipoIngresos: '01', 'TelefonoEmisor[1]': '809-000-0001', 'TelefonoEmisor[2]': '809-000-0002', ...b,
      MontoGravadoTotal: '1000.00', MontoGravadoI1: '1000.00', MontoExento: '250.00', ITBIS1: '18', TotalITBIS: '180.00', TotalITBIS1: '180.00', MontoTotal: '1430.00',
      ...items(
        { ind: '1', name: 'SILLA', bs: '1', qty: '2.00', unit: '43', price: '500.0000', amount: '1000.00' },
        { ind: '4', name: 'LIBRO', bs: '1', qty: '1.00', unit: '43', price: '250.00', amount: '250.00' },
      ),
    }),
    common(rnc, '32', 'E320000000002', {
      IndicadorMontoGravado: '0', TipoIngresos: '01', RazonSocialEmisor: 'EMISOR SINTETICO CONSUMO', ...b,
      MontoGravadoTotal: '2000.00', MontoGravadoI1: '2000.00', ITBIS1: '18', TotalITBIS: '360.00', TotalITBIS1: '360.00', MontoTotal: '2360.00',
      ...items({ ind: '1', name: 'CARGADOR', bs: '1', qty: '2', unit: '55', price: '1000.00', amount: '2000.00' }),
    }),
    common(rnc, '41', 'E410000000001', {
      FechaVencimientoSecuencia: '31-12-2028', IndicadorMontoGravado: '0', 'FormaPago[1]': '1', 'MontoPago[1]': '9000.00', RNCComprador: buyer, RazonSocialComprador: 'PROVEEDOR SINTETICO',
      MontoGravadoTotal: '10000.00', MontoGravadoI1: '10000.00', ITBIS1: '18', TotalITBIS: '1800.00', TotalITBIS1: '1800.00', MontoTotal: '11800.00', ValorPagar: '11800.00',
      TotalITBISRetenido: '1800.00', TotalISRRetencion: '1000.00',
      ...items({
        ind: '1', name: 'SERVICIO', bs: '2', qty: '1.00', unit: '43', price: '10000.00', amount: '10000.00',
        extra: { 'IndicadorAgenteRetencionoPercepcion[i]': '1', 'MontoITBISRetenido[i]': '1800.00', 'MontoISRRetenido[i]': '1000.00' },
      }),
    }),
    common(rnc, '43', 'E430000000001', {
      FechaVencimientoSecuencia: '31-12-2028', MontoExento: '500.00', MontoTotal: '500.00',
      ...items({ ind: '4', name: 'GASTOS DE OFICINA', bs: '2', qty: '1', unit: '43', price: '500.0000', amount: '500.00', extra: { 'TipoCodigo[i][1]': 'Interno', 'CodigoItem[i][1]': '0001' } }),
    }),
    common(rnc, '47', 'E470000000001', {
      FechaVencimientoSecuencia: '31-12-2028', IdentificadorExtranjero: FOREIGN_ID, RazonSocialComprador: 'PROVEEDOR EXTERIOR SINTETICO',
      MontoExento: '60000.00', MontoTotal: '60000.00', TotalISRRetencion: '16200.00', TipoMoneda: 'USD', TipoCambio: '60.0000', MontoExentoOtraMoneda: '1000.00', MontoTotalOtraMoneda: '1000.00',
      ...items({
        ind: '4', name: 'LICENCIA', bs: '2', qty: '1.00', unit: '43', price: '60000.00', amount: '60000.00',
        extra: { 'IndicadorAgenteRetencionoPercepcion[i]': '1', 'MontoISRRetenido[i]': '16200.00', 'PrecioOtraMoneda[i]': '1000.0000', 'MontoItemOtraMoneda[i]': '1000.00' },
      }),
    }),
  ];
  const rfce: Cells[] = [
    {
      CasoPrueba: rnc + 'E320000000002', Version: '1.0', TipoeCF: '32', ENCF: 'E320000000002', TipoIngresos: '01', TipoPago: '1',
      RNCEmisor: rnc, RazonSocialEmisor: 'EMISOR SINTETICO CONSUMO', FechaEmision: '01-04-2020', RNCComprador: buyer, RazonSocialComprador: 'COMPRADOR SINTETICO',
      MontoGravadoTotal: '2000.00', MontoGravadoI1: '2000.00', TotalITBIS: '360.00', TotalITBIS1: '360.00', MontoTotal: '2360.00',
    },
  ];
  const approval = (encf: string, fecha: string, monto: number, estado = 1, motivo?: string): ApprovalRow => ({
    Version: '1.0', RNCEmisor: buyer, eNCF: encf, FechaEmision: fecha, MontoTotal: monto, RNCComprador: rnc, Estado: estado,
    ...(motivo ? { DetalleMotivoRechazo: motivo } : {}), FechaHoraAprobacionComercial: APPROVED_AT,
  });
  const approvals = [
    approval('E310000000001', '01-04-2020', 1430),
    approval('E330000000001', '02-04-2020', 100),
    approval('E340000000001', '01-04-2020', 0),
    approval('E310000000001', '01-04-2020', 1430, 2, 'Precio incorrecto'),
  ];
  return { ecf, rfce, approvals };
}

// ---- the full set: amounts in cents, written with DGII's text quirks

const money = (cents: number): string => `${Math.trunc(cents / 100)}.${String(Math.abs(cents % 100)).padStart(2, '0')}`;
const RATE: Record<string, number> = { '1': 18, '2': 16, '3': 0 };

interface FullLine extends Omit<Line, 'amount' | 'price' | 'qty'> {
  readonly qty: string;
  /** The price as written (`500.0000`). */
  readonly price: string;
  /** MontoItem per unit in cents, after the line's own discounts and surcharges. */
  readonly cents: number;
  readonly quantity: number;
}

/** Totals of DOP lines without additional taxes, prices without ITBIS (IndicadorMontoGravado 0). */
function totalsOf(lines: readonly FullLine[], opts: { discount?: { ind: string; cents: number }; itbisFields?: boolean } = {}): { cells: Cells; total: number } {
  const groups: Record<string, number> = { '0': 0, '1': 0, '2': 0, '3': 0, '4': 0 };
  for (const l of lines) groups[l.ind]! += l.cents * l.quantity;
  if (opts.discount) groups[opts.discount.ind]! -= opts.discount.cents;
  const cells: Cells = {};
  const present = (ind: string) => lines.some((l) => l.ind === ind);
  let gravado = 0;
  let itbis = 0;
  for (const ind of ['1', '2', '3']) {
    if (!present(ind)) continue;
    const base = groups[ind]!;
    const tax = Math.round((base * RATE[ind]!) / 100);
    gravado += base;
    itbis += tax;
    cells[`MontoGravadoI${ind}`] = money(base);
    cells[`ITBIS${ind}`] = String(RATE[ind]);
    cells[`TotalITBIS${ind}`] = money(tax);
  }
  if (gravado || present('3')) {
    cells.MontoGravadoTotal = money(gravado);
    cells.TotalITBIS = money(itbis);
  }
  if (present('4')) cells.MontoExento = money(groups['4']!);
  const total = gravado + itbis + groups['4']!;
  cells.MontoTotal = money(total);
  if (present('0')) cells.MontoNoFacturable = money(groups['0']!);
  return { cells, total };
}

const lineCells = (lines: readonly FullLine[]): Cells =>
  items(...lines.map((l) => ({ ...l, amount: money(l.cents * l.quantity) })));

function full(rnc: string, buyer: string): CertificationRows {
  const b = { RNCComprador: buyer, RazonSocialComprador: 'COMPRADOR SINTETICO SRL' };
  const venc = { FechaVencimientoSecuencia: '31-12-2028' };
  const ecf: Cells[] = [];
  const rfce: Cells[] = [];
  const approvals: ApprovalRow[] = [];
  const issued = new Map<string, { fecha: string; total: number; cells: Cells }>();
  const add = (tipo: string, encf: string, fecha: string, header: Cells, lines: FullLine[], opts: Parameters<typeof totalsOf>[1] = {}, after?: (c: Cells, total: number) => void) => {
    const t = totalsOf(lines, opts);
    const row = common(rnc, tipo, encf, { FechaEmision: fecha, ...header, ...t.cells, ...lineCells(lines) });
    after?.(row, t.total);
    ecf.push(row);
    issued.set(encf, { fecha, total: t.total, cells: row });
    return t.total;
  };
  const L = (ind: string, name: string, quantity: number, qty: string, price: string, cents: number, extra?: Cells, bs = '1'): FullLine => ({
    ind, name, bs, qty, quantity, price, cents, unit: '43', ...(extra ? { extra } : {}),
  });

  // 31 ×4: telephones, payment pairs, NumeroContenedor, sub-discount and sub-surcharge tables, item codes,
  // an additional tax (header TipoImpuesto[k] and item TipoImpuesto[i][j]), a global discount, subtotal, pagination.
  add('31', 'E310000000002', '03-02-2020', {
    ...venc, IndicadorMontoGravado: '0', TipoIngresos: '01', 'FormaPago[1]': '1', 'MontoPago[1]': '1000.00', 'FormaPago[2]': '3', 'MontoPago[2]': '430.00',
    'TelefonoEmisor[1]': '809-555-0101', 'TelefonoEmisor[2]': '809-555-0102', 'TelefonoEmisor[3]': '829-555-0103', ...b, 'NumeroContenedor ': 'CONT-0001',
  }, [L('1', 'SILLA', 2, '2.00', '500.0000', 50000), L('4', 'LIBRO', 1, '1.00', '250.00', 25000)]);
  add('31', 'E310000000003', '10-02-2020', { ...venc, IndicadorMontoGravado: '0', TipoIngresos: '01', ...b }, [
    L('1', 'MESA', 1, '1', '1000.00', 90000, {
      'DescuentoMonto[i]': '150.00', 'TipoSubDescuento[i][1]': '$', 'MontoSubDescuento[i][1]': '150.00',
      'RecargoMonto[i]': '50.00', 'TipoSubRecargo[i][1]': '$', 'MontosubRecargo[i][1]': '50.00', 'TipoCodigo[i][1]': 'Interno', 'CodigoItem[i][1]': 'M-100',
    }),
  ]);
  add('31', 'E310000000004', '17-02-2020', { ...venc, IndicadorMontoGravado: '0', TipoIngresos: '01', ...b }, [L('1', 'SERVICIO DE MESA', 1, '1.00', '2000.00', 200000, { 'TipoImpuesto[i][1]': '001' }, '2')], {}, (c, total) => {
    // Propina legal (001, 10 %): outside the ITBIS base, added to the total.
    c['TipoImpuesto[1]'] = '001';
    c['TasaImpuestoAdicional[1]'] = '10';
    c['OtrosImpuestosAdicionales[1]'] = '200.00';
    c.MontoImpuestoAdicional = '200.00';
    c.MontoTotal = money(total + 20000);
  });
  add('31', 'E310000000009', '24-02-2020', { ...venc, IndicadorMontoGravado: '0', TipoIngresos: '01', ...b, TotalPaginas: '2' }, [
    L('1', 'ESCRITORIO', 1, '1.00', '1000.00', 100000), L('1', 'LAMPARA', 2, '2.00', '250.0000', 25000),
  ], { discount: { ind: '1', cents: 10000 } }, (c) => {
    Object.assign(c, {
      'NumeroLineaDoR[1]': '1', 'TipoAjuste[1]': 'D', 'DescripcionDescuentooRecargo[1]': 'DESCUENTO POR VOLUMEN', 'TipoValor[1]': '$',
      'ValorDescuentooRecargo[1]': '100.00', 'MontoDescuentooRecargo[1]': '100.00', 'IndicadorFacturacionDescuentooRecargo[1]': '1',
      NumeroSubTotal: '1', DescripcionSubtotal: 'MOBILIARIO', Orden: '1', SubTotalMontoGravadoTotal: '1400.00', SubTotalMontoGravadoI1: '1400.00', MontoSubTotal: '1400.00', Lineas: '2',
      // Page totals before the global discount, one line per page.
      'PaginaNo[1]': '1', 'NoLineaDesde[1]': '1', 'NoLineaHasta[1]': '1', 'SubtotalMontoGravadoPagina[1]': '1000.00', 'SubtotalMontoGravado1Pagina[1]': '1000.00',
      'SubtotalItbisPagina[1]': '180.00', 'SubtotalItbis1Pagina[1]': '180.00', 'MontoSubtotalPagina[1]': '1180.00',
      'PaginaNo[2]': '2', 'NoLineaDesde[2]': '2', 'NoLineaHasta[2]': '2', 'SubtotalMontoGravadoPagina[2]': '500.00', 'SubtotalMontoGravado1Pagina[2]': '500.00',
      'SubtotalItbisPagina[2]': '90.00', 'SubtotalItbis1Pagina[2]': '90.00', 'MontoSubtotalPagina[2]': '590.00',
    });
  });

  // 32 ×6: two at or above 250,000 (full e-CF to the authority), four under (RFCE).
  add('32', 'E320000000006', '02-03-2020', { IndicadorMontoGravado: '0', TipoIngresos: '01', 'FormaPago[1]': '1', 'MontoPago[1]': '354000.00', ...b }, [L('1', 'EQUIPO INDUSTRIAL', 1, '1.00', '300000.00', 30000000)]);
  add('32', 'E320000000007', '03-03-2020', { IndicadorMontoGravado: '0', TipoIngresos: '01', ...b }, [L('1', 'GENERADOR', 1, '1', '250000.00', 25000000), L('4', 'MANUAL', 1, '1.00', '500.00', 50000)]);
  const consumo: [string, string, FullLine[], Cells][] = [
    ['E320000000011', '05-03-2020', [L('1', 'CARGADOR', 2, '2', '1000.00', 100000)], {}],
    ['E320000000012', '06-03-2020', [L('1', 'AUDIFONOS', 1, '1.00', '1500.0000', 150000), L('4', 'REVISTA', 3, '3.00', '100.00', 10000)], { 'FormaPago[1]': '1', 'MontoPago[1]': '2070.00' }],
    ['E320000000013', '07-03-2020', [L('2', 'YOGURT', 10, '10.00', '55.00', 5500)], {}],
    ['E320000000014', '08-03-2020', [L('4', 'PAN', 5, '5', '40.00', 4000)], {}],
  ];
  for (const [encf, fecha, lines, extra] of consumo) {
    const hasBuyer = encf !== 'E320000000014';
    add('32', encf, fecha, { IndicadorMontoGravado: '0', TipoIngresos: '01', RazonSocialEmisor: 'EMISOR SINTETICO CONSUMO', ...(hasBuyer ? b : {}), ...extra }, lines);
    const full = issued.get(encf)!.cells;
    const r: Cells = {
      CasoPrueba: rnc + encf, Version: '1.0', TipoeCF: '32', ENCF: encf, TipoIngresos: '01', TipoPago: '1', ...extra,
      RNCEmisor: rnc, RazonSocialEmisor: 'EMISOR SINTETICO CONSUMO', FechaEmision: fecha, ...(hasBuyer ? b : {}),
    };
    for (const k of ['MontoGravadoTotal', 'MontoGravadoI1', 'MontoGravadoI2', 'MontoGravadoI3', 'MontoExento', 'TotalITBIS', 'TotalITBIS1', 'TotalITBIS2', 'TotalITBIS3', 'MontoTotal']) {
      if (full[k] !== undefined) r[k] = full[k]!;
    }
    rfce.push(r);
  }

  // 41 ×2 with withholdings.
  add('41', 'E410000000003', '09-04-2020', { ...venc, IndicadorMontoGravado: '0', RNCComprador: buyer, RazonSocialComprador: 'PROVEEDOR SINTETICO' }, [
    L('1', 'SERVICIO PROFESIONAL', 1, '1.00', '10000.00', 1000000, { 'IndicadorAgenteRetencionoPercepcion[i]': '1', 'MontoITBISRetenido[i]': '1800.00', 'MontoISRRetenido[i]': '1000.00' }, '2'),
  ], {}, (c) => Object.assign(c, { ValorPagar: '11800.00', TotalITBISRetenido: '1800.00', TotalISRRetencion: '1000.00' }));
  add('41', 'E410000000004', '10-04-2020', { ...venc, IndicadorMontoGravado: '0', 'FormaPago[1]': '2', 'MontoPago[1]': '5900.00', RNCComprador: buyer, RazonSocialComprador: 'PROVEEDOR SINTETICO' }, [
    L('1', 'MANTENIMIENTO', 1, '1', '5000.00', 500000, { 'IndicadorAgenteRetencionoPercepcion[i]': '1', 'MontoITBISRetenido[i]': '900.00', 'MontoISRRetenido[i]': '500.00' }, '2'),
  ], {}, (c) => Object.assign(c, { TotalITBISRetenido: '900.00', TotalISRRetencion: '500.00' }));

  // 43 ×2: no buyer, exempt only.
  add('43', 'E430000000002', '11-05-2020', venc, [L('4', 'GASTOS DE OFICINA', 1, '1', '500.0000', 50000, { 'TipoCodigo[i][1]': 'Interno', 'CodigoItem[i][1]': '0001' }, '2')]);
  add('43', 'E430000000005', '12-05-2020', venc, [L('4', 'TRANSPORTE', 2, '2.00', '150.00', 15000, undefined, '2')]);

  // 44 ×2: special regime, exempt.
  add('44', 'E440000000001', '04-06-2020', { ...venc, TipoIngresos: '01', ...b }, [L('4', 'MATERIALES', 4, '4.00', '2500.00', 250000)]);
  add('44', 'E440000000003', '05-06-2020', { ...venc, TipoIngresos: '01', RazonSocialComprador: 'ZONA ESPECIAL SINTETICA' }, [L('4', 'INSUMOS', 1, '1.00', '12000.00', 1200000)]);

  // 45 ×2: government; one in USD.
  add('45', 'E450000000001', '15-06-2020', { ...venc, IndicadorMontoGravado: '0', TipoIngresos: '01', ...b }, [L('1', 'PAPELERIA', 100, '100.00', '35.50', 3550)]);
  add('45', 'E450000000002', '16-06-2020', { ...venc, IndicadorMontoGravado: '0', TipoIngresos: '01', ...b }, [
    L('1', 'SOFTWARE', 1, '1.00', '58500.00', 5850000, { 'PrecioOtraMoneda[i]': '1000.0000', 'MontoItemOtraMoneda[i]': '1000.00' }, '2'),
  ], {}, (c) => Object.assign(c, {
    TipoMoneda: 'USD', TipoCambio: '58.5000', MontoGravadoTotalOtraMoneda: '1000.00', MontoGravado1OtraMoneda: '1000.00',
    TotalITBISOtraMoneda: '180.00', TotalITBIS1OtraMoneda: '180.00', MontoTotalOtraMoneda: '1180.00',
  }));

  // 46 ×2: exports at 0 %.
  add('46', 'E460000000001', '06-07-2020', { ...venc, TipoIngresos: '01', ...b, TotalFob: '80000.00' }, [L('3', 'CACAO EN GRANO', 1000, '1000.00', '80.00', 8000)]);
  add('46', 'E460000000004', '07-07-2020', { ...venc, TipoIngresos: '01', ...b }, [L('3', 'TABACO', 50, '50', '400.00', 40000)]);

  // 47 ×2: payments abroad, foreign buyer; one in USD.
  add('47', 'E470000000002', '03-08-2020', { ...venc, IdentificadorExtranjero: FOREIGN_ID, RazonSocialComprador: 'PROVEEDOR EXTERIOR SINTETICO' }, [
    L('4', 'LICENCIA', 1, '1.00', '60000.00', 6000000, { 'IndicadorAgenteRetencionoPercepcion[i]': '1', 'MontoISRRetenido[i]': '16200.00', 'PrecioOtraMoneda[i]': '1000.0000', 'MontoItemOtraMoneda[i]': '1000.00' }, '2'),
  ], {}, (c) => Object.assign(c, { TotalISRRetencion: '16200.00', TipoMoneda: 'USD', TipoCambio: '60.0000', MontoExentoOtraMoneda: '1000.00', MontoTotalOtraMoneda: '1000.00' }));
  add('47', 'E470000000003', '04-08-2020', { ...venc, IdentificadorExtranjero: FOREIGN_ID, RazonSocialComprador: 'CONSULTOR EXTERIOR SINTETICO' }, [
    L('4', 'ASESORIA', 1, '1', '20000.00', 2000000, { 'IndicadorAgenteRetencionoPercepcion[i]': '1', 'MontoISRRetenido[i]': '5400.00' }, '2'),
  ], {}, (c) => Object.assign(c, { TotalISRRetencion: '5400.00' }));

  // Notes: 33 on a 32 ≥ 250k (code 3), 34 annulling a 44 (code 1), 34 correcting text of a 46 (code 2).
  const ref = (encf: string) => ({ NCFModificado: encf, FechaNCFModificado: issued.get(encf)!.fecha });
  add('33', 'E330000000005', '20-03-2020', { ...venc, TipoIngresos: '01', ...b }, [L('4', 'AJUSTE DE PRECIO', 1, '1.00', '100.00', 10000)], {}, (c) =>
    Object.assign(c, { ...ref('E320000000006'), CodigoModificacion: '3', RazonModificacion: 'Ajuste de monto' }));
  const annulled = issued.get('E440000000001')!;
  add('34', 'E340000000002', '10-06-2020', { IndicadorNotaCredito: '0', TipoIngresos: '01', ...b }, [L('4', 'MATERIALES', 4, '4.00', '2500.00', 250000)], {}, (c, total) => {
    if (total !== annulled.total) throw new Error('the annulling credit note must carry the 44’s total');
    Object.assign(c, { ...ref('E440000000001'), CodigoModificacion: '1', RazonModificacion: 'Anulacion' });
  });
  add('34', 'E340000000003', '10-07-2020', { IndicadorNotaCredito: '0', TipoIngresos: '01', ...b }, [L('0', 'CORRECCION', 1, '1.00', '1.00', 100, undefined, '2')], {}, (c) =>
    Object.assign(c, { MontoTotal: '0.00', ...ref('E460000000001'), CodigoModificacion: '2', RazonModificacion: 'Error en datos' }));

  // Not in dependency order: notes before their originals, like DGII's files.
  const order = ['E330000000005', 'E320000000006', 'E340000000002', 'E310000000002', 'E320000000011', 'E440000000001', 'E340000000003', 'E410000000003',
    'E460000000001', 'E310000000003', 'E430000000002', 'E320000000012', 'E450000000001', 'E470000000002', 'E310000000004', 'E320000000007', 'E440000000003',
    'E320000000013', 'E410000000004', 'E460000000004', 'E430000000005', 'E450000000002', 'E310000000009', 'E470000000003', 'E320000000014'];
  const byEncf = new Map(ecf.map((c) => [c.ENCF!, c]));
  if (order.length !== ecf.length || order.some((e) => !byEncf.has(e))) throw new Error('the full set’s order must list every case once');

  const approve = (encf: string) => {
    const doc = issued.get(encf)!;
    approvals.push({ Version: '1.0', RNCEmisor: buyer, eNCF: encf, FechaEmision: doc.fecha, MontoTotal: Number(doc.cells.MontoTotal), RNCComprador: rnc, Estado: 1, FechaHoraAprobacionComercial: APPROVED_AT });
  };
  for (const e of ['E310000000002', 'E310000000003', 'E310000000004', 'E310000000009', 'E330000000005', 'E340000000002', 'E340000000003', 'E440000000001', 'E440000000003', 'E450000000001', 'E450000000002']) approve(e);
  return { ecf: order.map((e) => byEncf.get(e)!), rfce, approvals };
}

/** The rows of a synthetic set, before they are written to .xlsx. */
export function certificationRows(options: CertificationWorkbookOptions): CertificationRows {
  const counterpart = options.counterpart ?? DEFAULT_COUNTERPART;
  const rows = options.variant === 'section8' ? section8(options.rnc, counterpart) : full(options.rnc, counterpart);
  if (!options.shuffle) return rows;
  const random = seeded(options.seed ?? 24);
  return { ecf: shuffled(rows.ecf, random), rfce: shuffled(rows.rfce, random), approvals: shuffled(rows.approvals, random) };
}

function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

function shuffled<T>(list: readonly T[], random: () => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// ---- the files

function sheetRows(headers: readonly string[], rows: readonly Cells[]): string[][] {
  const at = new Map(headers.map((h, i) => [h, i]));
  return rows.map((cells) => {
    const values = new Array<string>(headers.length).fill('#e');
    for (const [h, v] of Object.entries(cells)) {
      const i = at.get(h);
      if (i === undefined) throw new Error(`The synthetic row has a cell "${h}" that is not a header of the sheet`);
      values[i] = v;
    }
    return values;
  });
}

export async function workbooksFromRows(rows: CertificationRows): Promise<{ paso2: Buffer; paso3: Buffer }> {
  // Loaded here: exceljs is some 300 files, and only this mode's workbook download uses it.
  const { default: Excel } = await import('exceljs');
  const created = new Date('2020-02-17T10:00:00Z');

  const book2 = new Excel.Workbook();
  book2.created = created;
  book2.modified = created;
  const ecf = book2.addWorksheet(SHEETS.ecf, { views: [{ state: 'frozen', xSplit: 1, ySplit: 1, topLeftCell: 'B2', activeCell: 'B2' }] });
  ecf.addRow([...ECF_SHEET_HEADERS]);
  ecf.addRows(sheetRows(ECF_SHEET_HEADERS, rows.ecf));
  ecf.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: ECF_SHEET_HEADERS.length } };
  const rfce = book2.addWorksheet(SHEETS.rfce);
  rfce.addRow([...RFCE_SHEET_HEADERS]);
  rfce.addRows(sheetRows(RFCE_SHEET_HEADERS, rows.rfce));

  const book3 = new Excel.Workbook();
  book3.created = created;
  book3.modified = created;
  const acecf = book3.addWorksheet(SHEETS.acecf);
  acecf.addRow([...ACECF_SHEET_HEADERS]);
  for (const a of rows.approvals) {
    acecf.addRow([a.Version, a.RNCEmisor, a.eNCF, a.FechaEmision, a.MontoTotal, a.RNCComprador, a.Estado, a.DetalleMotivoRechazo ?? null, a.FechaHoraAprobacionComercial]);
  }

  const [paso2, paso3] = await Promise.all([book2.xlsx.writeBuffer(), book3.xlsx.writeBuffer()]);
  return { paso2: Buffer.from(paso2 as ArrayBuffer), paso3: Buffer.from(paso3 as ArrayBuffer) };
}

/** Both synthetic workbooks as .xlsx bytes. */
export async function certificationWorkbooks(options: CertificationWorkbookOptions): Promise<{ paso2: Buffer; paso3: Buffer }> {
  return workbooksFromRows(certificationRows(options));
}
