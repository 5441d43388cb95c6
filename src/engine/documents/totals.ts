import { Dec, ZERO, round2, round4, sum } from '../money.js';
import type { TaxTreatment } from './payload.js';

/**
 * The authority's totals (Formato e-CF; NOTES §12.2 read with §12.6, which
 * wins where they differ), in decimal arithmetic, rounded half-up to 2
 * decimals once per quantity: line amounts, then each group base, then each
 * tax. Inputs are already normalised by validation (defaults applied).
 */

export type BillingIndicator = 0 | 1 | 2 | 3 | 4;
export type ItbisRate = 18 | 16 | 0;

export const RATE_OF_INDICATOR: Record<1 | 2 | 3, ItbisRate> = { 1: 18, 2: 16, 3: 0 };
export const INDICATOR_OF_RATE: Record<ItbisRate, 1 | 2 | 3> = { 18: 1, 16: 2, 0: 3 };

export interface TaxLineInput {
  readonly code: string;
  readonly rate: Dec;
  readonly especifico: Dec;
  readonly advalorem: Dec;
  readonly otros: Dec;
}

export interface LineInput {
  readonly treatment: TaxTreatment;
  /** For taxed lines. */
  readonly rate: ItbisRate;
  readonly quantity: Dec;
  readonly unitPrice: Dec;
  readonly discount: Dec;
  readonly surcharge: Dec;
  /** The price (and its discount and surcharge) already include ITBIS. */
  readonly priceIncludesTax: boolean;
  readonly additionalTaxes: readonly TaxLineInput[];
  readonly itbisWithheld: Dec | null;
  readonly isrWithheld: Dec | null;
}

export interface AdjustmentInput {
  readonly kind: 'discount' | 'surcharge';
  readonly indicator: BillingIndicator;
  readonly amount: Dec;
  readonly percentage: Dec | null;
  readonly norm1007: boolean;
}

export interface TotalsInput {
  /** IndicadorMontoGravado: the document's amounts include ITBIS. */
  readonly pricesIncludeTax: boolean;
  readonly lines: readonly LineInput[];
  readonly adjustments: readonly AdjustmentInput[];
  readonly nonInvoiceableAmount: Dec;
}

export interface ComputedLine {
  readonly indicator: BillingIndicator;
  /** The unit price as written in the XML, in the document's price mode. */
  readonly unitPrice: Dec;
  readonly discount: Dec;
  readonly surcharge: Dec;
  /** MontoItem. */
  readonly amount: Dec;
  /** ISC of codes 006–039: enters the line's ITBIS base. */
  readonly selectiveTax: Dec;
}

export interface AdditionalTaxTotal {
  readonly code: string;
  readonly rate: Dec;
  readonly especifico: Dec;
  readonly advalorem: Dec;
  readonly otros: Dec;
}

export interface ComputedAdjustment {
  readonly kind: 'discount' | 'surcharge';
  readonly indicator: BillingIndicator;
  readonly amount: Dec;
  readonly percentage: Dec | null;
  readonly norm1007: boolean;
}

/** Header totals; a field is absent (undefined) when its group has no lines (§12.6 rule 8). */
export interface Totals {
  readonly montoGravadoTotal?: Dec;
  readonly montoGravadoI1?: Dec;
  readonly montoGravadoI2?: Dec;
  readonly montoGravadoI3?: Dec;
  readonly montoExento?: Dec;
  readonly itbis1?: 18;
  readonly itbis2?: 16;
  readonly itbis3?: 0;
  readonly totalItbis?: Dec;
  readonly totalItbis1?: Dec;
  readonly totalItbis2?: Dec;
  readonly totalItbis3?: Dec;
  readonly montoImpuestoAdicional?: Dec;
  readonly impuestosAdicionales: readonly AdditionalTaxTotal[];
  readonly montoTotal: Dec;
  readonly montoNoFacturable?: Dec;
  readonly montoPeriodo?: Dec;
  readonly valorPagar: Dec;
  readonly totalItbisRetenido?: Dec;
  readonly totalIsrRetencion?: Dec;
}

export interface ComputedDocument {
  readonly lines: readonly ComputedLine[];
  readonly adjustments: readonly ComputedAdjustment[];
  readonly totals: Totals;
}

const ONE = new Dec(1);
const SELECTIVE = /^0(0[6-9]|[12]\d|3\d)$/; // 006–039

export const indicatorOf = (line: Pick<LineInput, 'treatment' | 'rate'>): BillingIndicator =>
  line.treatment === 'non_invoiceable' ? 0 : line.treatment === 'exempt' ? 4 : INDICATOR_OF_RATE[line.rate];

/**
 * A line priced in the other mode than the document's is restated in the
 * document's mode (the XML has one IndicadorMontoGravado for all lines):
 * price to 4 decimals, discount and surcharge to 2.
 */
function restate(line: LineInput, documentIncludesTax: boolean): Pick<ComputedLine, 'unitPrice' | 'discount' | 'surcharge'> {
  const indicator = indicatorOf(line);
  if (line.priceIncludesTax === documentIncludesTax || indicator === 0 || indicator === 4) {
    return { unitPrice: line.unitPrice, discount: line.discount, surcharge: line.surcharge };
  }
  const factor = ONE.plus(new Dec(line.rate).div(100));
  const convert = documentIncludesTax ? (d: Dec) => d.times(factor) : (d: Dec) => d.div(factor);
  return { unitPrice: round4(convert(line.unitPrice)), discount: round2(convert(line.discount)), surcharge: round2(convert(line.surcharge)) };
}

export function computeLine(line: LineInput, documentIncludesTax: boolean): ComputedLine {
  const priced = restate(line, documentIncludesTax);
  const amount = round2(line.quantity.times(priced.unitPrice).minus(priced.discount).plus(priced.surcharge));
  const selectiveTax = sum(line.additionalTaxes.filter((t) => SELECTIVE.test(t.code)).map((t) => t.especifico.plus(t.advalorem)));
  return { indicator: indicatorOf(line), ...priced, amount, selectiveTax };
}

export function computeTotals(input: TotalsInput): ComputedDocument {
  const lines = input.lines.map((l) => computeLine(l, input.pricesIncludeTax));
  const groupAmount = (n: BillingIndicator) => sum(lines.filter((l) => l.indicator === n).map((l) => l.amount));
  const has = (n: BillingIndicator) => lines.some((l) => l.indicator === n);

  // Tax-inclusive amounts are divided once per rate group, then global adjustments apply as net amounts.
  const grossBase = (n: 1 | 2 | 3): Dec => {
    const g = groupAmount(n);
    return input.pricesIncludeTax ? round2(g.div(ONE.plus(new Dec(RATE_OF_INDICATOR[n]).div(100)))) : g;
  };
  const telecom = input.pricesIncludeTax && input.adjustments.some((a) => a.norm1007) ? norm1007Group(input.lines, lines) : null;
  const bases = new Map<BillingIndicator, Dec>([
    [1, telecom ? telecom.base : grossBase(1)],
    [2, grossBase(2)],
    [3, grossBase(3)],
    [4, groupAmount(4)],
  ]);
  const adjustments: ComputedAdjustment[] = input.adjustments.map((a) => ({
    ...a,
    amount: a.amount.isZero() && a.percentage ? round2((bases.get(a.indicator) ?? ZERO).times(a.percentage).div(100)) : round2(a.amount),
  }));
  const adjusted = (n: BillingIndicator): Dec =>
    adjustments
      .filter((a) => a.indicator === n && !a.norm1007)
      .reduce((base, a) => (a.kind === 'discount' ? base.minus(a.amount) : base.plus(a.amount)), bases.get(n) ?? ZERO);

  const gravado = { 1: adjusted(1), 2: adjusted(2), 3: adjusted(3) } as const;
  const itbisOf = (n: 1 | 2 | 3): Dec => {
    const selective = sum(lines.filter((l) => l.indicator === n).map((l) => l.selectiveTax));
    return round2(gravado[n].plus(selective).times(RATE_OF_INDICATOR[n]).div(100));
  };
  const taxedGroups = ([1, 2, 3] as const).filter(has);
  const itbis = { 1: itbisOf(1), 2: itbisOf(2), 3: itbisOf(3) } as const;

  const byCode = new Map<string, AdditionalTaxTotal>();
  for (const t of input.lines.flatMap((l) => l.additionalTaxes)) {
    const computedHere = telecom?.taxes.get(t.code);
    if (computedHere) {
      byCode.set(t.code, { code: t.code, rate: t.rate, especifico: ZERO, advalorem: ZERO, otros: computedHere });
      continue;
    }
    const prev = byCode.get(t.code);
    byCode.set(t.code, {
      code: t.code,
      rate: prev?.rate ?? t.rate,
      especifico: (prev?.especifico ?? ZERO).plus(t.especifico),
      advalorem: (prev?.advalorem ?? ZERO).plus(t.advalorem),
      otros: (prev?.otros ?? ZERO).plus(t.otros),
    });
  }
  const impuestosAdicionales = [...byCode.values()].sort((a, b) => a.code.localeCompare(b.code)).map((t) => ({
    ...t,
    especifico: round2(t.especifico),
    advalorem: round2(t.advalorem),
    otros: round2(t.otros),
  }));
  const montoImpuestoAdicional = sum(impuestosAdicionales.map((t) => t.especifico.plus(t.advalorem).plus(t.otros)));

  const montoGravadoTotal = sum(taxedGroups.map((n) => gravado[n]));
  const totalItbis = sum(taxedGroups.map((n) => itbis[n]));
  const montoExento = has(4) ? adjusted(4) : ZERO;
  const montoTotal = montoGravadoTotal.plus(montoExento).plus(totalItbis).plus(montoImpuestoAdicional);
  const hasNonInvoiceable = has(0) || !input.nonInvoiceableAmount.isZero();
  const montoNoFacturable = groupAmount(0).plus(round2(input.nonInvoiceableAmount));
  const norm1007 = sum(adjustments.filter((a) => a.norm1007).map((a) => (a.kind === 'discount' ? a.amount : a.amount.neg())));
  const withheld = (pick: (l: LineInput) => Dec | null) => {
    const values = input.lines.map(pick).filter((v): v is Dec => v !== null);
    return values.length ? round2(sum(values)) : undefined;
  };

  const totals: Totals = {
    ...(taxedGroups.length > 0 && { montoGravadoTotal, totalItbis }),
    ...(has(1) && { montoGravadoI1: gravado[1], itbis1: 18 as const, totalItbis1: itbis[1] }),
    ...(has(2) && { montoGravadoI2: gravado[2], itbis2: 16 as const, totalItbis2: itbis[2] }),
    ...(has(3) && { montoGravadoI3: gravado[3], itbis3: 0 as const, totalItbis3: itbis[3] }),
    ...(has(4) && { montoExento }),
    ...(impuestosAdicionales.length > 0 && { montoImpuestoAdicional }),
    impuestosAdicionales,
    montoTotal,
    ...(hasNonInvoiceable && { montoNoFacturable, montoPeriodo: montoTotal.plus(montoNoFacturable) }),
    valorPagar: montoTotal.minus(norm1007),
    ...spread('totalItbisRetenido', withheld((l) => l.itbisWithheld)),
    ...spread('totalIsrRetencion', withheld((l) => l.isrWithheld)),
  };
  return { lines, adjustments, totals };
}

/** Tabla I codes of Norma 10-07: CDT (002) and ISC on telecommunications (004). */
export const NORM_1007_CODES: ReadonlySet<string> = new Set(['002', '004']);

interface Norm1007Group {
  /** MontoGravadoI1 before global adjustments. */
  readonly base: Dec;
  /** OtrosImpuestosAdicionales of 002 and 004, by code. */
  readonly taxes: ReadonlyMap<string, Dec>;
}

/**
 * The 18 % group of a Norma 10-07 document (FMT fields 93 d and 109 d): its
 * prices include ITBIS, CDT (002) and ISC on telecommunications (004), so the
 * lines are summed per set of those taxes they carry and each sum is divided
 * once by (1 + 0.18 + their rates), rounded; 002 and 004 are that base × their
 * rate. Lines without 002 or 004 divide by 1.18, as usual. Validation
 * guarantees tax-inclusive prices and one rate per code.
 */
function norm1007Group(inputs: readonly LineInput[], lines: readonly ComputedLine[]): Norm1007Group {
  const subgroups = new Map<string, { amount: Dec; taxes: TaxLineInput[] }>();
  lines.forEach((l, i) => {
    if (l.indicator !== 1) return;
    const taxes = inputs[i]!.additionalTaxes.filter((t) => NORM_1007_CODES.has(t.code)).sort((a, b) => a.code.localeCompare(b.code));
    const key = taxes.map((t) => `${t.code}:${t.rate.toString()}`).join(',');
    const group = subgroups.get(key);
    if (group) group.amount = group.amount.plus(l.amount);
    else subgroups.set(key, { amount: l.amount, taxes });
  });
  let base = ZERO;
  const exact = new Map<string, Dec>();
  for (const { amount, taxes } of subgroups.values()) {
    const subBase = round2(amount.div(norm1007Divisor(taxes)));
    base = base.plus(subBase);
    for (const t of taxes) exact.set(t.code, (exact.get(t.code) ?? ZERO).plus(subBase.times(t.rate).div(100)));
  }
  return { base, taxes: new Map([...exact].map(([code, v]) => [code, round2(v)])) };
}

/** What a tax-inclusive amount of the 18 % group divides by under Norma 10-07: 1 + 0.18 + the rates of the 002/004 it carries. */
export const norm1007Divisor = (taxes: readonly { readonly rate: Dec }[]): Dec => ONE.plus(new Dec(18).div(100)).plus(sum(taxes.map((t) => t.rate)).div(100));

const spread = <K extends string>(key: K, value: Dec | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, Dec>));

/** Header totals in the other currency (§12.6 rule 6): each DOP total ÷ the rate, rounded; supplied values win. */
export type ForeignTotalKey =
  | 'montoGravadoTotal' | 'montoGravadoI1' | 'montoGravadoI2' | 'montoGravadoI3' | 'montoExento'
  | 'totalItbis' | 'totalItbis1' | 'totalItbis2' | 'totalItbis3' | 'montoImpuestoAdicional' | 'montoTotal';

export function computeForeignTotals(
  totals: Totals,
  exchangeRate: Dec,
  supplied: Partial<Record<ForeignTotalKey, Dec>> = {},
): Partial<Record<ForeignTotalKey, Dec>> {
  const keys: ForeignTotalKey[] = [
    'montoGravadoTotal', 'montoGravadoI1', 'montoGravadoI2', 'montoGravadoI3', 'montoExento',
    'totalItbis', 'totalItbis1', 'totalItbis2', 'totalItbis3', 'montoImpuestoAdicional', 'montoTotal',
  ];
  const out: Partial<Record<ForeignTotalKey, Dec>> = {};
  for (const k of keys) {
    const dop = totals[k];
    if (dop === undefined) continue;
    out[k] = supplied[k] ?? round2(dop.div(exchangeRate));
  }
  return out;
}
