import type { Document, Element } from '@xmldom/xmldom';
import { Dec } from '../../../src/engine/money.js';
import type { SignedEcf } from '../../../src/engine/documents/sign-ecf.js';
import { parseXml, verifySignature } from '../../../src/engine/signing/verify.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import type { DocumentKind } from '../../../src/engine/xml/schema-trees.generated.js';
import type { Generated } from './arbitraries.js';
import { NOW, signValidated, validate } from './issue-helper.js';

/**
 * The document property: a payload either gets validation errors that name
 * fields, or becomes an e-CF that (1) the official XSD accepts, (2) whose
 * signature verifies, and (3) whose totals square by the authority's rules
 * (NOTES §12.2, §12.3, §12.6), recomputed here from the XML's own values.
 * A throw from signEcf (the pre-sign schema gate) is a failure: our builder
 * and the schema disagree.
 */

export type Verdict = { kind: 'refused'; errors: number } | { kind: 'issued'; signed: SignedEcf };

export class PropertyFailure extends Error {}
const fail = (message: string): never => {
  throw new PropertyFailure(message);
};

export function checkDocument(g: Generated): Verdict {
  const outcome = validate(g.payload);
  if (!outcome.document) {
    if (outcome.errors.length === 0) fail('no document and no errors');
    for (const e of outcome.errors) {
      if (typeof e.path !== 'string' || e.path.length === 0) fail(`an error without a path: ${JSON.stringify(e)}`);
      if (!e.message) fail(`an error without a message: ${JSON.stringify(e)}`);
    }
    return { kind: 'refused', errors: outcome.errors.length };
  }
  if (g.outside) fail(`a payload outside the contract was accepted: ${JSON.stringify(g.payload).slice(0, 500)}`);
  for (const w of outcome.warnings) if (!w.path) fail(`a warning without a path: ${JSON.stringify(w)}`);
  const doc = outcome.document;
  let signed: SignedEcf;
  try {
    signed = signValidated(doc);
  } catch (e) {
    return fail(`signEcf threw on a validated payload: ${(e as Error).message}`);
  }
  const schema = validateAgainstSchema(`ecf${doc.type}` as DocumentKind, signed.xml);
  if (!schema.valid) fail(`the signed e-CF is invalid against its XSD: ${schema.errors.slice(0, 3).join(' | ')}`);
  const parsed = parseXml(signed.xml);
  if (!parsed.ok) return fail(`the signed e-CF does not parse: ${parsed.reason}`);
  const signature = verifySignature(signed.xml, parsed, NOW);
  if (!signature.ok) fail(`the signature does not verify: ${signature.reason}`);
  if (signed.rfceXml) {
    const rfce = validateAgainstSchema('rfce', signed.rfceXml);
    if (!rfce.valid) fail(`the RFCE is invalid against its XSD: ${rfce.errors.slice(0, 3).join(' | ')}`);
    const rp = parseXml(signed.rfceXml);
    if (!rp.ok || !verifySignature(signed.rfceXml, rp, NOW).ok) fail('the RFCE signature does not verify');
  }
  checkCuadratura(parsed.doc, g, signed);
  return { kind: 'issued', signed };
}

// ---------------------------------------------------------------------------
// Cuadratura, from the XML values only.

const kids = (el: Element | Document, name: string): Element[] => Array.from((el as Element).getElementsByTagName(name));
const one = (el: Element | Document, name: string): Element | undefined => kids(el, name)[0];
const val = (el: Element | Document | undefined, name: string): Dec | undefined => {
  const e = el && one(el, name);
  return e ? new Dec(e.textContent ?? '') : undefined;
};
const z = (d: Dec | undefined) => d ?? new Dec(0);
const round2 = (d: Dec) => d.toDecimalPlaces(2, Dec.ROUND_HALF_UP);
const RATE: Record<number, number> = { 1: 18, 2: 16, 3: 0 };

function near(what: string, actual: Dec | undefined, expected: Dec, tolerance: Dec | number): void {
  const a = z(actual);
  if (a.minus(expected).abs().gt(tolerance)) fail(`${what}: XML has ${a.toFixed(2)}, the rule gives ${expected.toFixed(2)} (tolerance ${String(tolerance)})`);
}

function checkCuadratura(doc: Document, g: Generated, signed: SignedEcf): void {
  const totales = one(doc, 'Totales')!;
  const t = (name: string) => val(totales, name);
  const items = kids(one(doc, 'DetallesItems')!, 'Item');
  const inclusive = one(doc, 'IndicadorMontoGravado')?.textContent === '1';
  const lineCount = items.length;

  // Header identities (exact: they are sums of the rounded fields).
  near('MontoGravadoTotal = I1 + I2 + I3', t('MontoGravadoTotal'), z(t('MontoGravadoI1')).plus(z(t('MontoGravadoI2'))).plus(z(t('MontoGravadoI3'))), 0);
  near('TotalITBIS = ITBIS1 + ITBIS2 + ITBIS3', t('TotalITBIS'), z(t('TotalITBIS1')).plus(z(t('TotalITBIS2'))).plus(z(t('TotalITBIS3'))), 0);
  near(
    'MontoTotal = MontoGravadoTotal + MontoExento + TotalITBIS + MontoImpuestoAdicional',
    t('MontoTotal'),
    z(t('MontoGravadoTotal')).plus(z(t('MontoExento'))).plus(z(t('TotalITBIS'))).plus(z(t('MontoImpuestoAdicional'))),
    0,
  );
  const header = one(totales, 'ImpuestosAdicionales');
  const headerTaxes = header ? kids(header, 'ImpuestoAdicional') : [];
  const taxAmount = (el: Element) =>
    z(val(el, 'MontoImpuestoSelectivoConsumoEspecifico')).plus(z(val(el, 'MontoImpuestoSelectivoConsumoAdvalorem'))).plus(z(val(el, 'OtrosImpuestosAdicionales')));
  near('MontoImpuestoAdicional = Σ ImpuestoAdicional', t('MontoImpuestoAdicional'), headerTaxes.reduce((s, e) => s.plus(taxAmount(e)), new Dec(0)), 0);
  if (t('MontoPeriodo')) near('MontoPeriodo = MontoTotal + MontoNoFacturable', t('MontoPeriodo'), z(t('MontoTotal')).plus(z(t('MontoNoFacturable'))), 0);

  // Lines: MontoItem = price × quantity − discount + surcharge (±1.00 per line, §12.3; our own rounding is exact).
  const byGroup = new Map<number, Dec>();
  const telecomDivisor = new Map<Element, Dec>();
  const rateOf = new Map(headerTaxes.map((e) => [one(e, 'TipoImpuesto')!.textContent!, val(e, 'TasaImpuestoAdicional')!]));
  let withheldItbis: Dec | undefined;
  let withheldIsr: Dec | undefined;
  for (const item of items) {
    const amount = val(item, 'MontoItem')!;
    const expected = round2(val(item, 'CantidadItem')!.times(val(item, 'PrecioUnitarioItem')!).minus(z(val(item, 'DescuentoMonto'))).plus(z(val(item, 'RecargoMonto'))));
    near(`MontoItem of line ${one(item, 'NumeroLinea')?.textContent}`, amount, expected, 0);
    const indicator = Number(one(item, 'IndicadorFacturacion')!.textContent);
    byGroup.set(indicator, (byGroup.get(indicator) ?? new Dec(0)).plus(amount));
    const codes = kids(item, 'TipoImpuesto').map((e) => e.textContent!);
    telecomDivisor.set(item, codes.filter((c) => c === '002' || c === '004').reduce((d, c) => d.plus(z(rateOf.get(c)).div(100)), new Dec('1.18')));
    const mi = val(item, 'MontoITBISRetenido');
    const mr = val(item, 'MontoISRRetenido');
    if (mi) withheldItbis = z(withheldItbis).plus(mi);
    if (mr) withheldIsr = z(withheldIsr).plus(mr);
  }
  if (withheldItbis) near('TotalITBISRetenido = Σ MontoITBISRetenido', t('TotalITBISRetenido'), withheldItbis, 0);
  if (withheldIsr) near('TotalISRRetencion = Σ MontoISRRetenido', t('TotalISRRetencion'), withheldIsr, 0);

  // Global adjustments per group; the 10-07 ones only reduce ValorPagar (FMT 93 d, 115 c).
  const adjustments = kids(doc, 'DescuentoORecargo');
  const norm1007 = adjustments.some((a) => one(a, 'IndicadorNorma1007')?.textContent === '1');
  const net = new Map<number, Dec>();
  let discount1007 = new Dec(0);
  for (const a of adjustments) {
    const amount = val(a, 'MontoDescuentooRecargo')!;
    const signedAmount = one(a, 'TipoAjuste')!.textContent === 'D' ? amount.neg() : amount;
    if (one(a, 'TipoValor')!.textContent === '$' && one(a, 'ValorDescuentooRecargo')) fail('a $ adjustment carries ValorDescuentooRecargo');
    if (one(a, 'IndicadorNorma1007')?.textContent === '1') {
      discount1007 = discount1007.minus(signedAmount);
      continue;
    }
    const n = Number(one(a, 'IndicadorFacturacionDescuentooRecargo')!.textContent);
    net.set(n, (net.get(n) ?? new Dec(0)).plus(signedAmount));
  }
  const tolerance = new Dec(lineCount);
  for (const n of [1, 2, 3] as const) {
    const sum = byGroup.get(n);
    if (!sum) {
      if (t(`MontoGravadoI${n}`)) fail(`MontoGravadoI${n} without lines in its group`);
      continue;
    }
    let base: Dec;
    if (n === 1 && norm1007 && inclusive) {
      base = items
        .filter((i) => one(i, 'IndicadorFacturacion')!.textContent === '1')
        .reduce((s, i) => s.plus(val(i, 'MontoItem')!.div(telecomDivisor.get(i)!)), new Dec(0));
    } else base = inclusive ? sum.div(1 + RATE[n]! / 100) : sum;
    const gravado = t(`MontoGravadoI${n}`);
    near(`MontoGravadoI${n} = Σ MontoItem${inclusive ? ' ÷ (1 + rate)' : ''} ± adjustments`, gravado, base.plus(z(net.get(n))), tolerance);
    // ITBIS: the gravado amount × rate, plus the rate on the selective taxes (006–039) of the group's lines.
    const itbis = t(`TotalITBIS${n}`)!;
    const plain = round2(z(gravado).times(RATE[n]!).div(100));
    const selective = headerTaxes
      .filter((e) => /^0(0[6-9]|[123]\d)$/.test(one(e, 'TipoImpuesto')!.textContent!))
      .reduce((s, e) => s.plus(taxAmount(e)), new Dec(0));
    if (itbis.lt(plain.minus('0.01')) || itbis.gt(plain.plus(selective.times(RATE[n]!).div(100)).plus('0.01'))) {
      fail(`TotalITBIS${n} ${itbis.toFixed(2)} is not MontoGravadoI${n} × ${RATE[n]} % (${plain.toFixed(2)}) plus at most the rate on the selective taxes (${selective.toFixed(2)})`);
    }
  }
  if (byGroup.get(4)) near('MontoExento = Σ exempt MontoItem ± adjustments', t('MontoExento'), byGroup.get(4)!.plus(z(net.get(4))), tolerance);
  else if (t('MontoExento')) fail('MontoExento without exempt lines');
  if (byGroup.has(0) && !t('MontoNoFacturable')) fail('non-invoiceable lines without MontoNoFacturable');

  // Norma 10-07: 002 and 004 are the group-1 base × their rate (FMT 109 d).
  if (norm1007 && inclusive) {
    for (const code of ['002', '004']) {
      const e = headerTaxes.find((x) => one(x, 'TipoImpuesto')!.textContent === code);
      if (!e) continue;
      const base = items
        .filter((i) => one(i, 'IndicadorFacturacion')!.textContent === '1' && kids(i, 'TipoImpuesto').some((c) => c.textContent === code))
        .reduce((s, i) => s.plus(val(i, 'MontoItem')!.div(telecomDivisor.get(i)!)), new Dec(0));
      near(`${code} under Norma 10-07 = base × rate`, taxAmount(e), base.times(z(rateOf.get(code))).div(100), tolerance);
    }
  }
  near('ValorPagar = MontoTotal − Norma 10-07 discounts', t('ValorPagar'), z(t('MontoTotal')).minus(discount1007), 0);

  // Other currency: the DOP totals ÷ the rate (unless the client gave them).
  const otra = one(doc, 'OtraMoneda');
  const supplied = (g.payload.foreignCurrency as { totals?: unknown } | undefined)?.totals;
  if (otra && !supplied) {
    const rate = val(otra, 'TipoCambio')!;
    near('MontoTotalOtraMoneda = MontoTotal ÷ TipoCambio', val(otra, 'MontoTotalOtraMoneda'), round2(z(t('MontoTotal')).div(rate)), 0);
  }

  // Type 32: the summary exactly below 250,000.00.
  if (g.type === 32 && (signed.rfceXml !== null) !== z(t('MontoTotal')).lt(250_000)) fail('RFCE presence does not follow MontoTotal < 250,000.00');
}
