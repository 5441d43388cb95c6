import { Dec, ZERO } from '../../money.js';
import { ECF_CODES } from '../codes.js';
import { SCHEMA } from '../matrix.js';
import type { EcfType } from '../payload.js';
import { INDICATOR_OF_RATE, type AdjustmentInput, type BillingIndicator } from '../totals.js';
import { AMOUNT, RATE_LABEL, checkDecimal, type SectionNotices } from './notices.js';
import { arr, bool, integer, obj, type Obj } from './readers.js';

/** Global adjustments (descuentos o recargos): line numbers, the group each adjusts, amount or percentage, the 10-07 flag. */

const MAX_DISCOUNT_PERCENTAGE = new Dec(100);
const MAX_SURCHARGE_PERCENTAGE = new Dec('999.99');

/** null = unreadable. `groups` = the billing indicators the lines use, when every line could be read. */
export function checkAdjustments(n: SectionNotices, p: Obj, type: EcfType | null, groups: Set<BillingIndicator> | null): AdjustmentInput[] | null {
  if (p.globalAdjustments == null) return [];
  const list = arr(p.globalAdjustments);
  if (!list) return null;
  if (type !== null && !SCHEMA.globalAdjustments[type] && list.length > 0) {
    n.error('globalAdjustments', ECF_CODES.FieldNotAllowed, `globalAdjustments are not allowed for type ${type}`);
  }
  const defaultIndicator: BillingIndicator =
    type === null ? 1 : SCHEMA.defaultTreatment[type] === 'exempt' ? 4 : INDICATOR_OF_RATE[SCHEMA.defaultRate[type]];
  const seen = new Map<number, number>();
  const out: AdjustmentInput[] = [];
  let readable = true;
  list.forEach((raw, i) => {
    const path = `globalAdjustments[${i}]`;
    const a = obj(raw);
    if (!a) {
      readable = false;
      return;
    }
    const line = integer(a.line);
    if (line !== undefined) {
      if (line < 1 || line > 99) n.error(`${path}.line`, ECF_CODES.OutOfRange, `${path}.line must be from 1 to 99`);
      else if (seen.has(line)) n.error(`${path}.line`, ECF_CODES.Duplicate, `${path}.line ${line} repeats globalAdjustments[${seen.get(line)}].line`);
      else seen.set(line, i);
    }
    let indicator: BillingIndicator = defaultIndicator;
    if (a.affectsItbisRate != null) {
      const x = integer(a.affectsItbisRate);
      if (x === undefined) readable = false;
      else if (x < 1 || x > 4) {
        n.error(`${path}.affectsItbisRate`, ECF_CODES.OutOfRange, `${path}.affectsItbisRate must be 1 (18 %), 2 (16 %), 3 (0 %) or 4 (exempt)`);
      } else indicator = x as BillingIndicator;
    }
    if (groups && !groups.has(indicator)) {
      n.error(`${path}.affectsItbisRate`, ECF_CODES.EmptyGroup, `${path} adjusts the ${RATE_LABEL[indicator]} group (affectsItbisRate ${indicator}), but no line is in it`);
    }
    const kind = a.kind == null ? 'discount' : a.kind === 'discount' || a.kind === 'surcharge' ? a.kind : undefined;
    // ValorDescuentooRecargo holds 3 integer digits; a discount beyond 100 % would make the group negative.
    const maxPercentage = kind === 'surcharge' ? MAX_SURCHARGE_PERCENTAGE : MAX_DISCOUNT_PERCENTAGE;
    const percentage = a.percentage == null ? null : checkDecimal(n, `${path}.percentage`, a.percentage, { scale: 2, min: 'positive', max: maxPercentage });
    const amount = a.amount == null ? ZERO : checkDecimal(n, `${path}.amount`, a.amount, AMOUNT);
    const norm1007 = a.norm1007 == null ? false : bool(a.norm1007);
    if (norm1007 && type !== null && !SCHEMA.norm1007[type]) {
      n.error(`${path}.norm1007`, ECF_CODES.FieldNotAllowed, `norm1007 adjustments are not allowed for type ${type}`);
    }
    if (percentage === undefined || amount === undefined || norm1007 === undefined || kind === undefined || line === undefined) {
      readable = false;
      return;
    }
    out.push({ kind, indicator, amount, percentage, norm1007 });
  });
  return readable ? out : null;
}
