import { TYPE_NAMES } from '../documents/types.js';
import { ADDITIONAL_TAXES, MODIFICATION_CODES, PAYMENT_FORMS, PAYMENT_TYPES } from '../documents/code-tables.generated.js';
import { amount, percentage, placeName, quantity, unitAbbreviation } from './format.js';
import type { PrintedEcf, PrintedLine } from './reader.js';

/**
 * What the printed representation says, in Spanish, independent of where a
 * layout puts it. Labels follow IT §17.2 and DGII's illustrative models
 * (NOTES §17.2–17.6); every value is the signed XML's.
 */

export interface Row {
  readonly label: string;
  readonly value: string;
  readonly bold?: boolean;
  /** A part of the row above (a rate group of the taxed subtotal). */
  readonly indent?: boolean;
}

export interface Line {
  readonly text: string;
  readonly bold?: boolean;
}

/** Everything the verification block and the pages need beside the XML. */
export interface RenderFacts {
  /** The timbre URL stored with the e-CF at signing; the QR carries exactly this. */
  readonly qrUrl: string;
  /** Signed while the appliance was in contingency (NOTES §17.9). */
  readonly signedDuringContingency: boolean;
}

export const title = (p: PrintedEcf): string => TYPE_NAMES[p.type] ?? `e-CF tipo ${p.type}`;

/** The issuer block, top left (IT §17.2 B, in its order). Fecha de Emisión is drawn on its own. */
export function issuerLines(p: PrintedEcf): Line[] {
  const i = p.issuer;
  const out: Line[] = [];
  if (i.tradeName) out.push({ text: i.tradeName, bold: true }, { text: i.legalName });
  else out.push({ text: i.legalName, bold: true });
  if (i.branch) out.push({ text: `Sucursal: ${i.branch}` });
  out.push({ text: `RNC: ${i.rnc}` });
  if (i.address) out.push({ text: `Dirección: ${i.address}` });
  const place = [i.municipality && placeName(i.municipality), i.province && placeName(i.province)].filter(Boolean).join(', ');
  if (place) out.push({ text: `${place}, Rep. Dom.` });
  const contact = [i.phones.length ? `Tel.: ${i.phones.join(', ')}` : null, i.email ? `Correo: ${i.email}` : null, i.website].filter(Boolean).join(' · ');
  if (contact) out.push({ text: contact });
  return out;
}

/** Under the e-NCF: the expiry date (never for 32 and 34) and, for notes, the modified NCF and the code in words. */
export function documentLines(p: PrintedEcf): Line[] {
  const out: Line[] = [];
  if (p.sequenceExpiresOn) out.push({ text: `Fecha Vencimiento: ${p.sequenceExpiresOn}` });
  const r = p.reference;
  if (r) {
    if (r.modifiedNcf) out.push({ text: `NCF Modificado: ${r.modifiedNcf}` });
    if (r.code) out.push({ text: MODIFICATION_CODES[r.code] ?? `Código de modificación ${r.code}`, bold: true });
    if (r.modifiedNcfDate) out.push({ text: `Fecha NCF Modificado: ${r.modifiedNcfDate}` });
    if (r.otherIssuerRnc) out.push({ text: `RNC Otro Contribuyente: ${r.otherIssuerRnc}` });
    if (r.reason) out.push({ text: `Razón: ${r.reason}` });
  }
  return out;
}

/**
 * The client block. A type 41's Comprador area describes the seller the
 * issuer bought from, so it is labelled as the supplier (NOTES §17.2 C marks
 * the label UNCONFIRMED); type 43 has no such area; a type 32 without buyer
 * data prints none.
 */
export function buyerLines(p: PrintedEcf): Line[] {
  const b = p.buyer;
  if (!b) return [];
  const who = p.type === 41 ? 'Proveedor' : 'Cliente';
  const out: Line[] = [];
  if (b.name) out.push({ text: `Razón Social ${who}: ${b.name}` });
  if (b.rnc) out.push({ text: `RNC ${who}: ${b.rnc}` });
  if (b.foreignId) out.push({ text: `Identificador Extranjero: ${b.foreignId}` });
  if (b.country) out.push({ text: `País: ${b.country}` });
  const place = [b.address, b.municipality && placeName(b.municipality), b.province && placeName(b.province)].filter(Boolean).join(', ');
  if (place) out.push({ text: `Dirección: ${place}` });
  const contact = [b.contact ? `Contacto: ${b.contact}` : null, b.email ? `Correo: ${b.email}` : null].filter(Boolean).join(' · ');
  if (contact) out.push({ text: contact });
  return out;
}

/** Commercial facts beside the client block (all "N" in FMT, printed because readers look for them). */
export function commercialLines(p: PrintedEcf): Line[] {
  const out: Line[] = [];
  if (p.paymentType) out.push({ text: `Tipo de Pago: ${PAYMENT_TYPES[p.paymentType] ?? p.paymentType}` });
  if (p.paymentDueDate) out.push({ text: `Fecha Límite de Pago: ${p.paymentDueDate}` });
  if (p.issuer.internalNumber) out.push({ text: `No. Factura Interna: ${p.issuer.internalNumber}` });
  if (p.issuer.orderNumber) out.push({ text: `No. Pedido: ${p.issuer.orderNumber}` });
  if (p.issuer.sellerCode) out.push({ text: `Vendedor: ${p.issuer.sellerCode}` });
  if (p.foreign) out.push({ text: `Moneda: ${p.foreign.currency}${p.foreign.rate ? ` · Tasa de cambio: ${p.foreign.rate}` : ''}` });
  return out;
}

const RATE_OF_INDICATOR: Readonly<Record<number, string>> = { 1: '18%', 2: '16%', 3: '0%' };

/** What the ITBIS column shows for a line: its rate, "E" for exempt, "N/F" for non-invoiceable. */
export function lineTax(l: PrintedLine, p: PrintedEcf): string {
  if (l.indicator === 4) return 'E';
  if (l.indicator === 0) return 'N/F';
  const rateKey = `ITBIS${l.indicator}`;
  const rate = p.totals[rateKey];
  return rate !== undefined ? `${percentage(rate)}%` : (RATE_OF_INDICATOR[l.indicator] ?? '');
}

export const lineUnit = (l: PrintedLine): string => (l.unit ? unitAbbreviation(l.unit) : '');
export const lineQuantity = (l: PrintedLine): string => quantity(l.quantity);

/** Discount and surcharge of a line, as "-10.00" and "+2.50". */
export function lineAdjustments(l: PrintedLine): string[] {
  const out: string[] = [];
  if (l.discount) out.push(`-${amount(l.discount)}`);
  if (l.surcharge) out.push(`+${amount(l.surcharge)}`);
  return out;
}

/** Small print under a line's name: alcohol data (I), the codes of its additional taxes, its retention. */
export function lineDetails(l: PrintedLine): string[] {
  const out: string[] = [];
  const alcohol = [
    l.alcoholDegrees ? `Grados alcohol: ${percentage(l.alcoholDegrees)}%` : null,
    l.referenceUnitPrice ? `PVP: ${amount(l.referenceUnitPrice)}` : null,
  ].filter(Boolean);
  if (alcohol.length) out.push(alcohol.join(' · '));
  if (l.additionalTaxCodes.length) out.push(`Impuestos adicionales: ${l.additionalTaxCodes.map((c) => `${c} ${ADDITIONAL_TAXES[c] ?? ''}`.trim()).join('; ')}`);
  if (l.retention && (l.retention.itbis || l.retention.isr)) {
    const verb = l.retention.agent === '2' ? 'percibido' : 'retenido';
    const parts = [l.retention.itbis ? `ITBIS ${verb}: ${amount(l.retention.itbis)}` : null, l.retention.isr ? `ISR ${verb}: ${amount(l.retention.isr)}` : null];
    out.push(parts.filter(Boolean).join(' · '));
  }
  return out;
}

const SELECTIVE_ESPECIFICO = /^0(0[6-9]|1\d|2[0-2])$/;
const SELECTIVE_ADVALOREM = /^0(2[3-9]|3\d)$/;

function additionalTaxLabel(code: string, part: 'especifico' | 'advalorem' | 'otros'): string {
  const name = ADDITIONAL_TAXES[code] ?? `Impuesto ${code}`;
  if (code === '001') return 'Propina Legal';
  if (code === '002') return 'CDT';
  if (part === 'especifico' || (part === 'otros' && SELECTIVE_ESPECIFICO.test(code))) return `ISC Específico ${name}`;
  if (part === 'advalorem' || SELECTIVE_ADVALOREM.test(code)) return `ISC Ad Valorem ${name}`;
  return name;
}

/** The document totals, in the order of the XML's Totales, each only when the XML has it. */
export function totalRows(p: PrintedEcf): Row[] {
  const t = p.totals;
  const rows: Row[] = [];
  const add = (key: string, label: string, bold = false, indent = false) => {
    const v = t[key];
    if (v !== undefined) rows.push({ label, value: amount(v), bold, indent });
  };
  const rate = (n: 1 | 2 | 3) => (t[`ITBIS${n}`] !== undefined ? `${percentage(t[`ITBIS${n}`]!)}%` : RATE_OF_INDICATOR[n]!);
  add('MontoGravadoTotal', 'Subtotal Gravado');
  const groups = ([1, 2, 3] as const).filter((n) => t[`MontoGravadoI${n}`] !== undefined);
  for (const n of groups) add(`MontoGravadoI${n}`, `Gravado ITBIS ${rate(n)}`, false, true);
  add('MontoExento', 'Subtotal Exento');
  for (const n of groups) add(`TotalITBIS${n}`, `ITBIS ${rate(n)}`);
  add('TotalITBIS', 'Total ITBIS');
  for (const tax of p.additionalTaxes) {
    for (const part of ['especifico', 'advalorem', 'otros'] as const) {
      const v = tax[part];
      if (v) rows.push({ label: `${additionalTaxLabel(tax.code, part)}${tax.rate && part !== 'especifico' ? ` (${percentage(tax.rate)}%)` : ''}`, value: amount(v) });
    }
  }
  add('MontoImpuestoAdicional', 'Total Impuestos Adicionales');
  add('MontoTotal', 'Total', true);
  add('MontoNoFacturable', 'Monto No Facturable');
  add('MontoPeriodo', 'Monto del Período');
  add('SaldoAnterior', 'Saldo Anterior');
  add('MontoAvancePago', 'Avance de Pago');
  if (t.ValorPagar !== undefined && t.ValorPagar !== t.MontoTotal) add('ValorPagar', 'Valor a Pagar', true);
  add('TotalITBISRetenido', 'ITBIS Retenido');
  add('TotalISRRetencion', 'ISR Retenido');
  add('TotalITBISPercepcion', 'ITBIS Percibido');
  add('TotalISRPercepcion', 'ISR Percibido');
  return rows;
}

/** The totals in the other currency (NOTES §17.8: the currency code joins each label). */
export function foreignRows(p: PrintedEcf): Row[] {
  const f = p.foreign;
  if (!f) return [];
  const c = f.currency;
  const rows: Row[] = [];
  const add = (key: string, label: string, bold = false) => {
    const v = f.totals[key];
    if (v !== undefined) rows.push({ label: `${label} ${c}`, value: amount(v), bold });
  };
  add('MontoGravadoTotalOtraMoneda', 'Subtotal Gravado');
  add('MontoExentoOtraMoneda', 'Subtotal Exento');
  add('TotalITBISOtraMoneda', 'Total ITBIS');
  add('MontoImpuestoAdicionalOtraMoneda', 'Impuestos Adicionales');
  add('MontoTotalOtraMoneda', 'Total', true);
  return rows;
}

/** Global discounts and surcharges (all "I": description, % or $, value, amount). */
export function adjustmentRows(p: PrintedEcf): Row[] {
  return p.adjustments.map((a) => {
    const kind = a.kind === 'R' ? 'Recargo' : 'Descuento';
    // A "$" adjustment's value is its amount; a "%" one shows its percentage.
    const value = a.valueType === '%' && a.value ? ` (${percentage(a.value)}%)` : '';
    return { label: `${kind}${a.description ? `: ${a.description}` : ''}${value}`, value: `${a.kind === 'R' ? '+' : '-'}${amount(a.amount)}` };
  });
}

export function paymentFormRows(p: PrintedEcf): Row[] {
  return p.paymentForms.map((f) => ({ label: PAYMENT_FORMS[f.form] ?? `Forma de pago ${f.form}`, value: amount(f.amount) }));
}

/** Informational subtotals (the payload's `subtotals`): each with its amount and what it is made of. */
export function subtotalRows(p: PrintedEcf): { row: Row; detail: string }[] {
  return p.subtotals.map((s, i) => {
    const lines = s.lines ? ` (${s.lines} ${s.lines === '1' ? 'línea' : 'líneas'})` : '';
    const detail = [
      s.gravado ? `Gravado ${amount(s.gravado)}` : null,
      s.exento ? `Exento ${amount(s.exento)}` : null,
      s.itbis ? `ITBIS ${amount(s.itbis)}` : null,
      s.additionalTax ? `Imp. adicional ${amount(s.additionalTax)}` : null,
    ].filter(Boolean).join(' · ');
    return { row: { label: `${s.description ?? `Subtotal ${s.number ?? i + 1}`}${lines}`, value: s.amount ? amount(s.amount) : '' }, detail };
  });
}

const SHIPPING_LABELS: Readonly<Record<string, string>> = {
  FechaEmbarque: 'Fecha de embarque', NumeroEmbarque: 'No. embarque', NumeroContenedor: 'No. contenedor', NumeroReferencia: 'No. referencia',
  NombrePuertoEmbarque: 'Puerto de embarque', CondicionesEntrega: 'Condiciones de entrega', TotalFob: 'Total FOB', Seguro: 'Seguro', Flete: 'Flete',
  OtrosGastos: 'Otros gastos', TotalCif: 'Total CIF', RegimenAduanero: 'Régimen aduanero', NombrePuertoSalida: 'Puerto de salida',
  NombrePuertoDesembarque: 'Puerto de desembarque', PesoBruto: 'Peso bruto', PesoNeto: 'Peso neto', CantidadBulto: 'Bultos', VolumenBulto: 'Volumen',
  ViaTransporte: 'Vía de transporte', PaisOrigen: 'País de origen', DireccionDestino: 'Dirección de destino', PaisDestino: 'País de destino',
  RNCIdentificacionCompaniaTransportista: 'RNC transportista', NombreCompaniaTransportista: 'Transportista', NumeroViaje: 'No. viaje',
  Conductor: 'Conductor', DocumentoTransporte: 'Documento de transporte', Ficha: 'Ficha', Placa: 'Placa', RutaTransporte: 'Ruta', ZonaTransporte: 'Zona',
  NumeroAlbaran: 'No. albarán',
};
const UNIT_OF: Readonly<Record<string, string>> = { PesoBruto: 'UnidadPesoBruto', PesoNeto: 'UnidadPesoNeto', CantidadBulto: 'UnidadBulto', VolumenBulto: 'UnidadVolumen' };
const MONEY = new Set(['TotalFob', 'Seguro', 'Flete', 'OtrosGastos', 'TotalCif']);
const VIA: Readonly<Record<string, string>> = { '01': 'Terrestre', '02': 'Marítima', '03': 'Aérea' };

/** Shipping and transport data as "label: value" items (all "N"; printed because they travel with the goods). */
export function shippingItems(p: PrintedEcf): string[] {
  const out: string[] = [];
  for (const pairs of [p.shipping, p.transport]) {
    const map = new Map(pairs);
    for (const [key, value] of pairs) {
      if (key.startsWith('Unidad')) continue;
      let shown = MONEY.has(key) ? amount(value) : ['PesoBruto', 'PesoNeto', 'CantidadBulto', 'VolumenBulto'].includes(key) ? quantity(value) : value;
      const unit = UNIT_OF[key] ? map.get(UNIT_OF[key]!) : undefined;
      if (unit) shown += ` ${unitAbbreviation(unit)}`;
      if (key === 'ViaTransporte') shown = VIA[value] ?? value;
      out.push(`${SHIPPING_LABELS[key] ?? key}: ${shown}`);
    }
  }
  return out;
}

/** Free text and the notes of NOTES §17.9 (their wording is ours: DGII publishes only examples). */
export function noteLines(p: PrintedEcf, facts: RenderFacts): Line[] {
  const out: Line[] = [];
  if (p.issuer.additionalInfo) out.push({ text: p.issuer.additionalInfo });
  if (p.buyer?.additionalInfo) out.push({ text: p.buyer.additionalInfo });
  if (p.deferred) {
    out.push({ text: 'Comprobante emitido en envío diferido: su validez fiscal puede consultarse a partir de 24 horas después de su emisión.', bold: true });
  }
  if (facts.signedDuringContingency) {
    out.push({ text: 'Comprobante emitido en contingencia: su validez fiscal puede consultarse a partir de 72 horas después de su emisión.', bold: true });
  }
  return out;
}

/** Labels of a page's subtotals (IT p.36–37), element name → label, in the order printed. */
export const PAGE_SUBTOTAL_LABELS: readonly (readonly [string, string])[] = [
  ['SubtotalMontoGravadoPagina', 'Subtotal Gravado Página'],
  ['SubtotalExentoPagina', 'Subtotal Exento Página'],
  ['SubtotalItbisPagina', 'Subtotal ITBIS Página'],
  ['SubtotalImpuestoAdicionalPagina', 'Subtotal Impuesto Adicional Página'],
  ['SubtotalImpuestoSelectivoConsumoEspecificoPagina', 'Subtotal ISC Página'],
  ['SubtotalOtrosImpuesto', 'Subtotal Otros Impuestos Adicionales Página'],
  ['SubtotalMontoNoFacturablePagina', 'Subtotal No Facturable Página'],
  ['MontoSubtotalPagina', 'Monto Total Página'],
];

export const CODE_LABEL = 'Código de Seguridad';
export const SIGNED_LABEL = 'Fecha de Firma Digital';
