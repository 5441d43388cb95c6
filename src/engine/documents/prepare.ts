import type { NormalizedLine, Notice, NormalizedDocument } from './model.js';
import type { IssueEcfCommand } from './payload.js';
import { computeTotals, type ComputedDocument, type LineInput, type TotalsInput } from './totals.js';
import { checkBuyer, checkComputed, toleranceWarnings, validateDocument, type ValidationContext } from './validate/index.js';
import { bool, date, str } from './validate/readers.js';

/**
 * The prepare step, shared by issuing and the dry run: shape and matrix
 * (validate/), then the totals (totals.ts), then the checks that need the
 * totals. Everything is reported at once, in the order of the contract's
 * sections. When there are no errors it returns the document model with its
 * totals, ready for the XML and signing steps.
 */

export type { ValidationContext } from './validate/index.js';

export interface ValidationOutcome {
  errors: Notice[];
  warnings: Notice[];
  /** Only when `errors` is empty. */
  document: NormalizedDocument | null;
}

export function prepareDocument(payload: unknown, context: ValidationContext): ValidationOutcome {
  const { notices, read } = validateDocument(payload, context);
  if (!read) return { errors: notices.errors, warnings: [], document: null };
  const { payload: p, type, adjustments, nonInvoiceableAmount, payment } = read;

  // Totals, when every line and adjustment could be read: for the type-32 threshold and the tolerance warnings.
  let totalsInput: TotalsInput | null = null;
  let computed: ComputedDocument | null = null;
  const lines = read.lines as NormalizedLine[];
  if (read.allLinesRead && adjustments !== null && nonInvoiceableAmount !== undefined) {
    totalsInput = { pricesIncludeTax: read.pricesIncludeTax, lines: lines.map(toLineInput), adjustments, nonInvoiceableAmount };
    computed = computeTotals(totalsInput);
    checkComputed(notices.in('totals'), p, lines, adjustments, computed);
  }
  checkBuyer(notices.in('buyer'), p, type, computed);
  if (computed) toleranceWarnings(notices.in('tolerance'), p, lines, computed);

  const errors = notices.errors;
  if (errors.length > 0 || type === null || totalsInput === null || computed === null || payment === null) {
    return { errors, warnings: notices.warnings, document: null };
  }
  return {
    errors: [],
    warnings: notices.warnings,
    document: {
      type,
      encf: str(p.encf) ?? null,
      sequenceExpiresOn: date(p.sequenceExpiresOn) ?? null,
      issueDate: read.issueDate,
      incomeType: str(p.incomeType) ?? null,
      paymentCondition: payment.condition,
      paymentDueDate: payment.dueDate,
      paymentMethods: payment.methods,
      deferredDelivery: bool(p.deferredDelivery) ?? false,
      totalsInput,
      computed,
      lines,
      command: payload as IssueEcfCommand,
    },
  };
}

export function toLineInput(l: NormalizedLine): LineInput {
  return {
    treatment: l.taxTreatment,
    rate: l.itbisRate ?? 0,
    quantity: l.quantity,
    unitPrice: l.unitPrice,
    discount: l.discount,
    surcharge: l.surcharge,
    priceIncludesTax: l.priceIncludesTax,
    additionalTaxes: l.additionalTaxes.map((t) => ({ code: t.code, rate: t.rate, especifico: t.iscEspecifico, advalorem: t.iscAdvalorem, otros: t.otros })),
    itbisWithheld: l.retention?.itbisWithheld ?? null,
    isrWithheld: l.retention?.isrWithheld ?? null,
  };
}
