import { Dec } from '../../money.js';
import { ECF_CODES } from '../codes.js';
import type { NormalizedLine } from '../model.js';
import { checkNorm1007Amounts, checkNorm1007Payable } from '../norm1007.js';
import type { AdjustmentInput, ComputedDocument } from '../totals.js';
import { AMOUNT_LIMIT as LIMIT, RATE_LABEL, type SectionNotices } from './notices.js';
import { decimal, obj, type Obj } from './readers.js';

/**
 * The checks that need the totals: every amount the computation produced
 * must be one the authority's fields can hold (no negative line or group,
 * no 10-07 discount beyond MontoTotal, at most 16 integer digits, at most
 * 20 additional-tax codes).
 */

/** Runs after computeTotals over these same lines and adjustments. */
export function checkComputed(
  n: SectionNotices,
  p: Obj,
  lines: readonly NormalizedLine[],
  adjustments: readonly AdjustmentInput[],
  computed: ComputedDocument,
): void {
  computed.lines.forEach((c, i) => {
    const l = lines[i]!;
    const sane = l.quantity.gt(0) && !l.unitPrice.isNegative() && !l.discount.isNegative() && !l.surcharge.isNegative();
    if (sane && c.amount.lt(0)) {
      n.error(`lines[${i}].discount`, ECF_CODES.OutOfRange, `lines[${i}] amount (MontoItem) would be ${c.amount.toFixed(2)}: the discount exceeds price × quantity plus surcharge`);
    }
  });
  checkNorm1007Payable(n.error, adjustments, computed);
  checkNorm1007Amounts(n.error, lines, adjustments, computed);
  checkComputedTotals(n, p, computed, adjustments);
}

const GROUP_TOTAL: Record<1 | 2 | 3 | 4, keyof ComputedDocument['totals']> = { 1: 'montoGravadoI1', 2: 'montoGravadoI2', 3: 'montoGravadoI3', 4: 'montoExento' };

function checkComputedTotals(n: SectionNotices, p: Obj, computed: ComputedDocument, adjustments: readonly AdjustmentInput[]): void {
  // A group cannot go below zero: its discounts exceed its lines.
  for (const g of [1, 2, 3, 4] as const) {
    const value = computed.totals[GROUP_TOTAL[g]] as Dec | undefined;
    if (!value?.isNegative()) continue;
    const i = adjustments.findIndex((a) => a.indicator === g && a.kind === 'discount' && !a.norm1007);
    if (i < 0) continue; // a line's own discount, reported on the line
    const field = adjustments[i]!.percentage ? 'percentage' : 'amount';
    n.error(
      `globalAdjustments[${i}].${field}`,
      ECF_CODES.OutOfRange,
      `the global discounts of the ${RATE_LABEL[g]} group exceed its lines: ${GROUP_TOTAL[g]} would be ${value.toFixed(2)}`,
    );
  }
  // At most 16 integer digits in every amount the XML carries.
  computed.lines.forEach((l, i) => {
    if (l.amount.abs().gte(LIMIT)) n.error(`lines[${i}].quantity`, ECF_CODES.OutOfRange, `lines[${i}] amount (MontoItem) ${l.amount.toFixed(2)} has more than 16 integer digits`);
  });
  const fc = obj(p.foreignCurrency);
  const rate = fc ? decimal(fc.exchangeRate) : undefined;
  for (const [key, value] of Object.entries(computed.totals)) {
    if (!Dec.isDecimal(value)) continue;
    const v = value as Dec;
    if (v.abs().gte(LIMIT)) n.error('lines', ECF_CODES.OutOfRange, `the document's ${key} would be ${v.toFixed(2)}: amounts have at most 16 integer digits`);
    else if (rate?.gt(0) && v.div(rate).abs().gte(LIMIT)) {
      n.error('foreignCurrency.exchangeRate', ECF_CODES.OutOfRange, `${key} converted at ${rate.toString()} has more than 16 integer digits`);
    }
  }
  const converted = rate?.gt(0) && computed.lines.some((l) => l.unitPrice.div(rate).gte(LIMIT) || l.amount.abs().div(rate).gte(LIMIT));
  if (converted) n.error('foreignCurrency.exchangeRate', ECF_CODES.OutOfRange, `a line's price or amount converted at ${rate!.toString()} has more than 16 integer digits`);
  for (const a of adjustments) if (rate?.gt(0) && a.amount.div(rate).gte(LIMIT)) {
    n.error('foreignCurrency.exchangeRate', ECF_CODES.OutOfRange, `a global adjustment converted at ${rate.toString()} has more than 16 integer digits`);
  }
  // The header's ImpuestosAdicionales holds at most 20 codes.
  if (computed.totals.impuestosAdicionales.length > 20) {
    n.error('lines', ECF_CODES.TooManyItems, `the lines use ${computed.totals.impuestosAdicionales.length} additional-tax codes; a document may carry at most 20`);
  }
}
