import { Dec, round2 } from '../money.js';
import { NORM_1007_CODES, norm1007Divisor, type AdjustmentInput, type ComputedDocument } from './totals.js';
import { LINE_TOLERANCE } from './validate/tolerance.js';
import { ECF_CODES } from './codes.js';
import type { NormalizedLine } from './model.js';

/**
 * Norma 10-07 (telecommunications; FMT fields 93 d, 109 d and 115 c, NOTES
 * §12.6 item 11). A document with a 10-07 discount is priced with ITBIS, CDT
 * (002) and ISC on telecommunications (004) included; the service divides the
 * 18 % group by (1 + 0.18 + the rates of 002 and 004 each line carries),
 * computes 002 and 004 from that base, and takes the 10-07 discount off
 * ValorPagar only. What the formulas cannot express is refused here, so the
 * totals never guess:
 * - a 10-07 adjustment is a discount on the 18 % group (affectsItbisRate 1);
 * - prices include the taxes (pricesIncludeTax true, on the document and on each 18 % line);
 * - at least one 18 % line carries 002 or 004, and no line outside the 18 % group does;
 * - 002 and 004 carry their rate, one rate per code; an amount (`otros`) is
 *   optional: the service computes it, and one the client sends must be the
 *   computed one within the tolerance of a line (checkNorm1007Amounts);
 * - the 10-07 discounts do not exceed MontoTotal.
 */

type Report = (path: string, code: string, message: string) => void;

export interface Norm1007Input {
  readonly pricesIncludeTax: boolean;
  /** The payload's lines, null where a line could not be read. */
  readonly lines: readonly (NormalizedLine | null)[];
  /** Every adjustment, in payload order. */
  readonly adjustments: readonly AdjustmentInput[];
}

export const hasNorm1007 = (adjustments: readonly AdjustmentInput[] | null): boolean => !!adjustments?.some((a) => a.norm1007);

export function checkNorm1007(error: Report, input: Norm1007Input): void {
  const flagged = input.adjustments.map((a, i) => [a, i] as const).filter(([a]) => a.norm1007);
  if (!flagged.length) return;
  for (const [a, i] of flagged) {
    const path = `globalAdjustments[${i}]`;
    if (a.kind !== 'discount') error(`${path}.kind`, ECF_CODES.InvalidValue, `${path} is a Norma 10-07 adjustment: it must be a discount`);
    if (a.indicator !== 1) {
      error(`${path}.affectsItbisRate`, ECF_CODES.InvalidValue, `${path} is a Norma 10-07 discount: it applies to the 18 % group (affectsItbisRate 1)`);
    }
  }
  if (!input.pricesIncludeTax) {
    error('pricesIncludeTax', ECF_CODES.InvalidValue, 'a Norma 10-07 document is priced with ITBIS, CDT (002) and telecom ISC (004) included: pricesIncludeTax must be true');
  }
  let telecomLines = 0;
  const rates = new Map<string, { rate: Dec; at: string }>();
  input.lines.forEach((line, k) => {
    if (!line) return;
    const taxed18 = line.taxTreatment === 'taxed' && line.itbisRate === 18;
    if (taxed18 && input.pricesIncludeTax && !line.priceIncludesTax) {
      error(`lines[${k}].priceIncludesTax`, ECF_CODES.InvalidValue, `lines[${k}] is in the 18 % group of a Norma 10-07 document: its price must include the taxes`);
    }
    let carries = false;
    line.additionalTaxes.forEach((t, j) => {
      if (!NORM_1007_CODES.has(t.code)) return;
      const at = `lines[${k}].additionalTaxes[${j}]`;
      carries = true;
      if (!taxed18) {
        error(`${at}.code`, ECF_CODES.InvalidValue, `additional tax ${t.code} of a Norma 10-07 document belongs on lines taxed at 18 %`);
      }
      const first = rates.get(t.code);
      if (!first) rates.set(t.code, { rate: t.rate, at });
      else if (!first.rate.eq(t.rate)) {
        error(`${at}.rate`, ECF_CODES.InvalidValue, `additional tax ${t.code} has rate ${t.rate.toString()} here and ${first.rate.toString()} at ${first.at}: one rate per code`);
      }
    });
    if (carries && taxed18) telecomLines++;
  });
  if (telecomLines === 0 && input.lines.every((l) => l !== null)) {
    const [, i] = flagged[0]!;
    error(`globalAdjustments[${i}].norm1007`, ECF_CODES.InvalidValue, 'a Norma 10-07 discount needs at least one line taxed at 18 % carrying additional tax 002 (CDT) or 004 (telecom ISC)');
  }
}

/** After the totals: the 10-07 discounts come off ValorPagar, which must not go below zero. */
export function checkNorm1007Payable(error: Report, adjustments: readonly AdjustmentInput[], computed: ComputedDocument): void {
  if (!hasNorm1007(adjustments) || !computed.totals.valorPagar.isNegative()) return;
  const i = adjustments.findIndex((a) => a.norm1007);
  error(
    `globalAdjustments[${i}].${adjustments[i]!.percentage ? 'percentage' : 'amount'}`,
    ECF_CODES.OutOfRange,
    `the Norma 10-07 discounts exceed MontoTotal ${computed.totals.montoTotal.toFixed(2)}: ValorPagar would be ${computed.totals.valorPagar.toFixed(2)}`,
  );
}

/**
 * After the totals: the contract has the client supply every amount already
 * calculated, so 002 and 004 amounts sent on a 10-07 line are taken when they
 * are what the service computes for that line (its tax-inclusive MontoItem ÷
 * the divisor × the rate) within a line's tolerance, and refused otherwise
 * with the expected value. A zero or missing amount is computed here. The XML
 * carries the computed amounts either way, summed per set of taxes as
 * norm1007Group does, so the header always squares with the lines.
 */
export function checkNorm1007Amounts(error: Report, lines: readonly NormalizedLine[], adjustments: readonly AdjustmentInput[], computed: ComputedDocument): void {
  if (!hasNorm1007(adjustments)) return;
  lines.forEach((line, k) => {
    const amount = computed.lines[k]?.amount;
    if (!amount || line.taxTreatment !== 'taxed' || line.itbisRate !== 18) return;
    const telecom = line.additionalTaxes.filter((t) => NORM_1007_CODES.has(t.code));
    const divisor = norm1007Divisor(telecom);
    line.additionalTaxes.forEach((t, j) => {
      if (!NORM_1007_CODES.has(t.code) || t.otros.isZero()) return;
      const expected = round2(amount.div(divisor).times(t.rate).div(100));
      if (t.otros.minus(expected).abs().lte(LINE_TOLERANCE)) return;
      const at = `lines[${k}].additionalTaxes[${j}].otros`;
      error(
        at,
        ECF_CODES.InvalidValue,
        `${at} ${t.otros.toFixed(2)} is not the Norma 10-07 amount of additional tax ${t.code}: expected ${expected.toFixed(2)} ` +
          `(MontoItem ${amount.toFixed(2)} ÷ ${divisor.toString()} × ${t.rate.toString()} %, FMT field 109 d), within ${LINE_TOLERANCE.toFixed(2)}; or leave it out and the service computes it`,
      );
    });
  });
}
