import { ZERO, type Dec } from '../../money.js';
import { fieldErrors } from '../../validation.js';
import { SCHEMA } from '../matrix.js';
import type { NormalizedLine, PaymentTerms } from '../model.js';
import { checkNorm1007 } from '../norm1007.js';
import { IssueEcfCommand, type EcfType } from '../payload.js';
import type { AdjustmentInput } from '../totals.js';
import { checkForeignCurrency } from './foreign-currency.js';
import { checkAdjustments } from './global-adjustments.js';
import { checkHeader, checkSequence, type ValidationContext } from './header.js';
import { checkLines } from './lines.js';
import { Notices } from './notices.js';
import { checkPassthrough } from './passthrough.js';
import { checkPayment } from './payment.js';
import { checkReference } from './reference.js';
import { bool, date, decimal, obj, readType, type Obj } from './readers.js';

/**
 * The validator: the payload's shape (payload.ts) plus the per-type matrix
 * (matrix.ts, NOTES §12) and the field rules of the contract, one file per
 * contract section. It reports every problem at once: a rule runs on
 * whatever part of the payload it needs that has the right shape, so one bad
 * field does not hide the others. It computes nothing: the totals and the
 * rules that need them come after it, in prepare.ts.
 */

export type { ValidationContext } from './header.js';
export { checkBuyer } from './buyer.js';
export { checkComputed } from './computed.js';
export { toleranceWarnings } from './tolerance.js';

/** What the validator could read, for the totals and the checks after them. */
export interface ReadDocument {
  readonly payload: Obj;
  readonly type: EcfType | null;
  /** YYYY-MM-DD, default today. */
  readonly issueDate: string;
  readonly pricesIncludeTax: boolean;
  /** null when a payment method could not be read. */
  readonly payment: PaymentTerms | null;
  /** Payload order; null where a line could not be read whole. */
  readonly lines: readonly (NormalizedLine | null)[];
  /** True when there is at least one line and every line could be read. */
  readonly allLinesRead: boolean;
  /** null when an adjustment could not be read. */
  readonly adjustments: AdjustmentInput[] | null;
  /** undefined when it could not be read. */
  readonly nonInvoiceableAmount: Dec | undefined;
}

export interface Validated {
  readonly notices: Notices;
  /** null when the payload is not an object at all. */
  readonly read: ReadDocument | null;
}

/** Shape and matrix: every rule that does not need the totals. */
export function validateDocument(payload: unknown, context: ValidationContext): Validated {
  const n = new Notices(fieldErrors(IssueEcfCommand, payload));
  const p = obj(payload);
  if (!p) return { notices: n, read: null };

  const type = readType(p.type);
  const issueDate = date(p.issueDate) ?? context.today;
  const pricesIncludeTax = bool(p.pricesIncludeTax) ?? false;

  const header = n.in('header');
  checkSequence(header, p, type, context, issueDate);
  checkHeader(header, p, type, context, issueDate);
  const payment = checkPayment(n.in('payment'), p, type);

  // Lines, then global adjustments over the lines' groups.
  const checked = checkLines(n.in('lines'), p, type, pricesIncludeTax);
  const lines = checked.map((c) => c.line);
  const allLinesRead = lines.length > 0 && lines.every((l) => l !== null) && Array.isArray(p.lines);
  // The groups need only each line's treatment and rate, so a line with a bad amount still counts.
  const groups = checked.every((c) => c.indicator !== null) ? new Set(checked.map((c) => c.indicator!)) : null;
  const adjusting = n.in('globalAdjustments');
  const adjustments = checkAdjustments(adjusting, p, type, Array.isArray(p.lines) ? groups : null);
  if (adjustments && type !== null && SCHEMA.norm1007[type]) checkNorm1007(adjusting.error, { pricesIncludeTax, lines, adjustments });

  checkReference(n.in('reference'), p, type, issueDate);
  checkForeignCurrency(n.in('foreignCurrency'), p, type);
  checkPassthrough(n.in('passthrough'), p, type);

  const nonInvoiceableAmount = decimal(p.nonInvoiceableAmount) ?? (p.nonInvoiceableAmount == null ? ZERO : undefined);
  return { notices: n, read: { payload: p, type, issueDate, pricesIncludeTax, payment, lines, allLinesRead, adjustments, nonInvoiceableAmount } };
}
