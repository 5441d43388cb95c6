import { DECIMAL_PATTERN, INTEGER_PATTERN } from '../schema-types.js';
import { Dec, ZERO, dec } from '../money.js';
import { fieldErrors } from '../validation.js';
import {
  CONSUMER_THRESHOLD,
  CURRENCIES,
  GIFT_CERTIFICATE_TYPES,
  MODIFICATION_5_TYPES,
  PRESENCE,
  SCHEMA,
  TAX_CODE,
  TRANSPORT_BASIC,
  TRANSPORT_EXPORT,
  isUnitCode,
  type LineKind,
  type TransportField,
} from './matrix.js';
import { ECF_TYPES, IssueEcfCommand, TAX_TREATMENTS, type EcfType, type TaxTreatment } from './payload.js';
import {
  INDICATOR_OF_RATE,
  computeTotals,
  indicatorOf,
  type AdjustmentInput,
  type BillingIndicator,
  type ComputedDocument,
  type ItbisRate,
  type LineInput,
  type TotalsInput,
} from './totals.js';
import { checkNorm1007, checkNorm1007Payable } from './norm1007.js';
import { PAGE_ELEMENTS, PAGE_POSITIVE, SUBTOTAL_ELEMENTS, hasElement } from './passthrough.js';
import { PLACES } from '../representation/code-tables.generated.js';
import { ECF_CODES } from './codes.js';

export { ECF_CODES };

/**
 * The issue validator: the payload's shape (payload.ts) plus the per-type
 * matrix (matrix.ts, NOTES §12) and the field rules of the contract, all
 * reported at once. A rule runs on whatever part of the payload it needs that
 * has the right shape, so one bad field does not hide the others. When there
 * are no errors it returns the document normalised (defaults applied,
 * decimals as Dec) for the totals, XML and storage steps.
 */

export interface ValidationContext {
  sequenceMode: 'managed' | 'external';
  /** Dominican calendar date, YYYY-MM-DD. */
  today: string;
}

/** Same shape as FieldError. */
export interface Notice {
  path: string;
  code: string;
  message: string;
}


export interface NormalizedRetention {
  /** IndicadorAgenteRetencionoPercepcion: 1 retention, 2 perception; defaults to 1 on 41 and 47, which require it. */
  agent: '1' | '2' | null;
  itbisWithheld: Dec | null;
  isrWithheld: Dec | null;
}

export interface NormalizedAdditionalTax {
  code: string;
  rate: Dec;
  iscEspecifico: Dec;
  iscAdvalorem: Dec;
  otros: Dec;
}

export interface NormalizedDetails {
  referenceQuantity: Dec | null;
  referenceUnit: string | null;
  subquantities: { quantity: Dec; unitCode: string }[];
  alcoholDegrees: Dec | null;
  referenceUnitPrice: Dec | null;
  manufactureDate: string | null;
  expiryDate: string | null;
  mining: { netWeightKilogram: Dec | null; netWeightMining: Dec | null; affiliationType: number | null; settlement: number | null } | null;
}

export interface NormalizedLineForeignCurrency {
  unitPrice: Dec | null;
  discount: Dec | null;
  surcharge: Dec | null;
  lineAmount: Dec | null;
}

export interface NormalizedLine {
  name: string;
  kind: LineKind;
  taxTreatment: TaxTreatment;
  /** For taxed lines; null otherwise. */
  itbisRate: ItbisRate | null;
  quantity: Dec;
  unitPrice: Dec;
  discount: Dec;
  surcharge: Dec;
  priceIncludesTax: boolean;
  codes: { type: string; value: string }[];
  retention: NormalizedRetention | null;
  additionalTaxes: NormalizedAdditionalTax[];
  details: NormalizedDetails | null;
  foreignCurrency: NormalizedLineForeignCurrency | null;
  unitOfMeasure: string | null;
  description: string | null;
  declaredAmount: Dec | null;
}

export interface NormalizedDocument {
  type: EcfType;
  encf: string | null;
  sequenceExpiresOn: string | null;
  /** YYYY-MM-DD, default today. */
  issueDate: string;
  incomeType: string | null;
  paymentCondition: '1' | '2' | '3' | null;
  paymentDueDate: string | null;
  paymentMethods: { type: string; amount: Dec }[];
  deferredDelivery: boolean;
  totalsInput: TotalsInput;
  /** The totals of `totalsInput`, computed once during validation. */
  computed: ComputedDocument;
  lines: NormalizedLine[];
  /** The validated payload itself, for the passthrough blocks. */
  command: IssueEcfCommand;
}

export interface ValidationOutcome {
  errors: Notice[];
  warnings: Notice[];
  /** Only when `errors` is empty. */
  document: NormalizedDocument | null;
}

// ---------------------------------------------------------------------------
// Readers: a value of the right shape, or undefined (its shape error is reported by fieldErrors).

type Obj = Record<string, unknown>;
const DECIMAL = new RegExp(DECIMAL_PATTERN);
const INTEGER = new RegExp(INTEGER_PATTERN);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj | undefined => (isObj(v) ? v : undefined);
const arr = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const decimal = (v: unknown): Dec | undefined =>
  (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && DECIMAL.test(v)) ? dec(v as number | string) : undefined;
const integer = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && INTEGER.test(v) ? Number(v) : undefined;
const given = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
const date = (v: unknown): string | undefined => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);

const readType = (v: unknown): EcfType | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{2}$/.test(v) ? Number(v) : NaN;
  return (ECF_TYPES as readonly number[]).includes(n) ? (n as EcfType) : null;
};

const RATE_LABEL: Record<BillingIndicator, string> = { 0: 'non-invoiceable', 1: '18 %', 2: '16 %', 3: '0 %', 4: 'exempt' };
const THRESHOLD = new Dec(CONSUMER_THRESHOLD);

// ---------------------------------------------------------------------------

class Notices {
  readonly errors: Notice[];
  readonly warnings: Notice[] = [];
  private readonly shapePaths: Set<string>;

  constructor(shape: readonly Notice[]) {
    this.errors = shape.map((e) => ({ ...e }));
    this.shapePaths = new Set(shape.map((e) => e.path));
  }

  /** A matrix error; skipped when the field already has a shape error or the same rule fired. */
  error(path: string, code: string, message: string): void {
    if (this.shapePaths.has(path)) return;
    if (this.errors.some((e) => e.path === path && e.code === code)) return;
    this.errors.push({ path, code, message });
  }

  warning(path: string, code: string, message: string): void {
    this.warnings.push({ path, code, message });
  }
}

interface DecimalRule {
  /** Maximum decimals. */
  scale: number;
  min?: 'positive' | 'non-negative';
  /** Maximum integer digits. */
  integerDigits?: number;
  max?: Dec;
  label?: string;
}

/** Reads a decimal and checks its sign and precision; the value is returned even when a rule failed. */
function checkDecimal(n: Notices, path: string, value: unknown, rule: DecimalRule): Dec | undefined {
  const d = decimal(value);
  if (d === undefined) return undefined;
  const label = rule.label ?? path;
  if (rule.min === 'positive' && !d.gt(0)) n.error(path, ECF_CODES.OutOfRange, `${label} must be greater than 0`);
  else if (rule.min === 'non-negative' && d.lt(0)) n.error(path, ECF_CODES.OutOfRange, `${label} must not be negative`);
  if (rule.max && d.gt(rule.max)) n.error(path, ECF_CODES.OutOfRange, `${label} must be at most ${rule.max.toString()}`);
  if (rule.integerDigits !== undefined && d.abs().trunc().toString().length > rule.integerDigits) {
    n.error(path, ECF_CODES.OutOfRange, `${label} may have at most ${rule.integerDigits} integer digits`);
  }
  if (d.decimalPlaces() > rule.scale) n.error(path, ECF_CODES.TooManyDecimals, `${label} may have at most ${rule.scale} decimals`);
  return d;
}

/** The XSD's amounts: 16 integer digits, 2 decimals (Decimal18D1or2). */
const AMOUNT: DecimalRule = { scale: 2, min: 'non-negative', integerDigits: 16 };
const MAX_DISCOUNT_PERCENTAGE = new Dec(100);
const MAX_SURCHARGE_PERCENTAGE = new Dec('999.99');
const SIGNED_AMOUNT: DecimalRule = { scale: 2, integerDigits: 16 };
const POSITIVE_AMOUNT: DecimalRule = { ...AMOUNT, min: 'positive' };
const LIMIT = new Dec('1e16');

// ---------------------------------------------------------------------------

export function validateIssue(payload: unknown, context: ValidationContext): ValidationOutcome {
  const n = new Notices(fieldErrors(IssueEcfCommand, payload));
  const p = obj(payload);
  if (!p) return { errors: n.errors, warnings: [], document: null };

  const type = readType(p.type);
  const issueDate = date(p.issueDate) ?? context.today;
  const pricesIncludeTax = bool(p.pricesIncludeTax) ?? false;

  checkSequence(n, p, type, context, issueDate);
  checkHeader(n, p, type, context, issueDate);
  const payment = checkPayment(n, p, type);

  // Lines, then global adjustments over the lines' groups.
  const rawLines = arr(p.lines) ?? [];
  if (type !== null && rawLines.length > SCHEMA.maxLines[type]) {
    n.error('lines', ECF_CODES.TooManyItems, `lines may hold at most ${SCHEMA.maxLines[type]} items for type ${type}`);
  }
  const hasForeignCurrency = given(p.foreignCurrency);
  const checked = rawLines.map((raw, i) => checkLine(n, raw, `lines[${i}]`, type, pricesIncludeTax, hasForeignCurrency));
  const lines = checked.map((c) => c.line);
  const allLinesRead = lines.length > 0 && lines.every((l) => l !== null) && Array.isArray(p.lines);
  // The groups need only each line's treatment and rate, so a line with a bad amount still counts.
  const groups = checked.every((c) => c.indicator !== null) ? new Set(checked.map((c) => c.indicator!)) : null;
  const adjustments = checkAdjustments(n, p, type, Array.isArray(p.lines) ? groups : null);
  const report = n.error.bind(n);
  if (adjustments && type !== null && SCHEMA.norm1007[type]) checkNorm1007(report, { pricesIncludeTax, lines, adjustments });

  // Totals, when every line and adjustment could be read: for the type-32 threshold and the tolerance warnings.
  let totalsInput: TotalsInput | null = null;
  let computed: ComputedDocument | null = null;
  const nonInvoiceableAmount = decimal(p.nonInvoiceableAmount) ?? (p.nonInvoiceableAmount == null ? ZERO : undefined);
  if (allLinesRead && adjustments !== null && nonInvoiceableAmount !== undefined) {
    const normalized = lines as NormalizedLine[];
    totalsInput = {
      pricesIncludeTax,
      lines: normalized.map(toLineInput),
      adjustments,
      nonInvoiceableAmount,
    };
    computed = computeTotals(totalsInput);
    computed.lines.forEach((c, i) => {
      const l = normalized[i]!;
      const sane = l.quantity.gt(0) && !l.unitPrice.isNegative() && !l.discount.isNegative() && !l.surcharge.isNegative();
      if (sane && c.amount.lt(0)) {
        n.error(`lines[${i}].discount`, ECF_CODES.OutOfRange, `lines[${i}] amount (MontoItem) would be ${c.amount.toFixed(2)}: the discount exceeds price × quantity plus surcharge`);
      }
    });
    checkNorm1007Payable(report, adjustments, computed);
    checkComputedTotals(n, p, computed, adjustments);
  }

  checkBuyer(n, p, type, computed);
  checkReference(n, p, type, issueDate);
  checkForeignCurrency(n, p, type);
  checkPassthrough(n, p, type);
  if (computed) toleranceWarnings(n, p, lines as NormalizedLine[], computed);

  if (n.errors.length > 0 || type === null || totalsInput === null || computed === null || payment === null) {
    return { errors: n.errors, warnings: n.warnings, document: null };
  }
  const command = payload as IssueEcfCommand;
  return {
    errors: [],
    warnings: n.warnings,
    document: {
      type,
      encf: str(p.encf) ?? null,
      sequenceExpiresOn: date(p.sequenceExpiresOn) ?? null,
      issueDate,
      incomeType: str(p.incomeType) ?? null,
      paymentCondition: payment.condition,
      paymentDueDate: payment.dueDate,
      paymentMethods: payment.methods,
      deferredDelivery: bool(p.deferredDelivery) ?? false,
      totalsInput,
      computed,
      lines: lines as NormalizedLine[],
      command,
    },
  };
}

// ---------------------------------------------------------------------------
// Header

function checkSequence(n: Notices, p: Obj, type: EcfType | null, context: ValidationContext, issueDate: string): void {
  const encf = str(p.encf);
  const expires = date(p.sequenceExpiresOn);
  if (context.sequenceMode === 'managed') {
    if (given(p.encf)) n.error('encf', ECF_CODES.FieldNotAllowed, 'encf is not accepted in managed sequence mode: the service assigns the e-NCF');
    if (given(p.sequenceExpiresOn)) {
      n.error('sequenceExpiresOn', ECF_CODES.FieldNotAllowed, 'sequenceExpiresOn is not accepted in managed sequence mode: it comes from the sequence range');
    }
    return;
  }
  if (!given(p.encf)) n.error('encf', ECF_CODES.FieldRequired, 'encf is required in external sequence mode');
  else if (encf && type !== null && /^E\d{12}$/.test(encf) && encf.slice(1, 3) !== String(type)) {
    n.error('encf', ECF_CODES.EncfTypeMismatch, `encf ${encf} is a type ${encf.slice(1, 3)} number, not type ${type}`);
  }
  if (type === null) return;
  if (PRESENCE.sequenceExpiresOn[type] === '0') {
    if (given(p.sequenceExpiresOn)) n.error('sequenceExpiresOn', ECF_CODES.FieldNotAllowed, `sequenceExpiresOn is not allowed for type ${type}`);
  } else if (!given(p.sequenceExpiresOn)) {
    n.error('sequenceExpiresOn', ECF_CODES.FieldRequired, `sequenceExpiresOn is required for type ${type} in external sequence mode`);
  } else if (expires && expires < issueDate) {
    n.error('sequenceExpiresOn', ECF_CODES.SequenceExpired, `the sequence expired on ${expires}, before the issue date ${issueDate}`);
  }
}

function checkHeader(n: Notices, p: Obj, type: EcfType | null, context: ValidationContext, issueDate: string): void {
  if (date(p.issueDate) && issueDate > context.today) {
    n.error('issueDate', ECF_CODES.DateInFuture, `issueDate ${issueDate} is in the future (today is ${context.today})`);
  }
  checkDecimal(n, 'nonInvoiceableAmount', p.nonInvoiceableAmount, SIGNED_AMOUNT);
  if (type === null) return;

  if (bool(p.deferredDelivery) === true && PRESENCE.deferredDelivery[type] === '0') {
    n.error('deferredDelivery', ECF_CODES.FieldNotAllowed, `deferredDelivery is not allowed for type ${type}`);
  }
  if (bool(p.pricesIncludeTax) === true && PRESENCE.pricesIncludeTax[type] === '0') {
    n.error('pricesIncludeTax', ECF_CODES.FieldNotAllowed, `pricesIncludeTax (IndicadorMontoGravado) is not allowed for type ${type}`);
  }
  if (PRESENCE.incomeType[type] === '1' && !given(p.incomeType)) {
    n.error('incomeType', ECF_CODES.FieldRequired, `incomeType is required for type ${type}`);
  } else if (PRESENCE.incomeType[type] === '0' && given(p.incomeType)) {
    n.error('incomeType', ECF_CODES.FieldNotAllowed, `incomeType is not allowed for type ${type}`);
  }
  const nonInvoiceable = decimal(p.nonInvoiceableAmount);
  if (nonInvoiceable && !nonInvoiceable.isZero() && !SCHEMA.nonInvoiceable[type]) {
    n.error('nonInvoiceableAmount', ECF_CODES.FieldNotAllowed, `nonInvoiceableAmount is not allowed for type ${type} (no MontoNoFacturable)`);
  }
  if (given(p.sellerCode) && !SCHEMA.sellerCode[type]) {
    n.error('sellerCode', ECF_CODES.FieldNotAllowed, `sellerCode is not allowed for type ${type}`);
  }
  const info = obj(p.additionalInfo);
  if (info && given(info.buyer) && !SCHEMA.buyerExtras[type]) {
    n.error('additionalInfo.buyer', ECF_CODES.FieldNotAllowed, `additionalInfo.buyer is not allowed for type ${type}`);
  }
}

interface ReadPayment {
  condition: '1' | '2' | '3' | null;
  dueDate: string | null;
  methods: { type: string; amount: Dec }[];
}

function checkPayment(n: Notices, p: Obj, type: EcfType | null): ReadPayment | null {
  const payment = obj(p.payment) ?? {};
  const condition = (str(payment.condition) as ReadPayment['condition'] | undefined) ?? null;
  const dueDate = date(payment.dueDate) ?? null;
  const methods: ReadPayment['methods'] = [];
  let complete = true;

  if (type !== null) {
    if (PRESENCE.paymentCondition[type] === '1' && !given(payment.condition)) {
      n.error('payment.condition', ECF_CODES.FieldRequired, `payment.condition is required for type ${type}`);
    }
    const due = PRESENCE.paymentDueDate[type];
    if (due === '0' && given(payment.dueDate)) {
      n.error('payment.dueDate', ECF_CODES.FieldNotAllowed, `payment.dueDate is not allowed for type ${type}`);
    } else if (due === '2' && condition === '2' && !given(payment.dueDate)) {
      n.error('payment.dueDate', ECF_CODES.FieldRequired, `payment.dueDate is required for type ${type} when payment.condition is 2 (credit)`);
    }
    if (PRESENCE.paymentMethods[type] === '0' && given(payment.methods)) {
      n.error('payment.methods', ECF_CODES.FieldNotAllowed, `payment.methods is not allowed for type ${type}`);
    }
  }
  (arr(payment.methods) ?? []).forEach((raw, i) => {
    const m = obj(raw);
    if (!m) {
      complete = false;
      return;
    }
    const path = `payment.methods[${i}]`;
    if (!given(m.type)) n.error(`${path}.type`, ECF_CODES.FieldRequired, `${path}.type is required: the service never fills it in`);
    if (!given(m.amount)) n.error(`${path}.amount`, ECF_CODES.FieldRequired, `${path}.amount is required: the service never fills it in`);
    const formType = str(m.type);
    if (formType === '5' && type !== null && !GIFT_CERTIFICATE_TYPES.includes(type)) {
      n.error(`${path}.type`, ECF_CODES.InvalidForType, `payment form 5 (bonds or gift certificates) is only allowed for type 32, not type ${type}`);
    }
    const amount = checkDecimal(n, `${path}.amount`, m.amount, AMOUNT);
    if (formType && amount) methods.push({ type: formType, amount });
    else complete = false;
  });
  return complete ? { condition, dueDate, methods } : null;
}

// ---------------------------------------------------------------------------
// Buyer and reference

function checkBuyer(n: Notices, p: Obj, type: EcfType | null, computed: ComputedDocument | null): void {
  const buyer = obj(p.buyer);
  const rnc = buyer ? str(buyer.rnc) : undefined;
  if (rnc && !/^(\d{9}|\d{11})$/.test(rnc)) {
    n.error('buyer.rnc', ECF_CODES.InvalidFormat, 'buyer.rnc must be an RNC of 9 digits or a cédula of 11 digits');
  }
  for (const key of ['municipality', 'province'] as const) {
    const code = buyer ? str(buyer[key]) : undefined;
    if (code && /^\d{6}$/.test(code) && !Object.hasOwn(PLACES, code)) {
      n.error(`buyer.${key}`, ECF_CODES.InvalidValue, `buyer.${key} ${code} is not in the authority's list of provinces and municipalities (Tabla III)`);
    }
  }
  if (type === null) return;

  const section = PRESENCE.buyer[type];
  if (section === '0') {
    if (given(p.buyer)) n.error('buyer', ECF_CODES.FieldNotAllowed, `buyer is not allowed for type ${type}`);
    return;
  }
  if (section === '1' && !given(p.buyer)) {
    const needs = [PRESENCE.buyerRnc[type] === '1' && 'rnc', PRESENCE.buyerName[type] === '1' && 'name'].filter(Boolean).join(' and ');
    n.error('buyer', ECF_CODES.FieldRequired, `buyer is required for type ${type}${needs ? ` (with ${needs})` : ''}`);
    return;
  }
  if (p.buyer !== undefined && p.buyer !== null && !buyer) return; // a shape error
  const b = buyer ?? {};

  const overThreshold = type === 32 && computed !== null && computed.totals.montoTotal.gte(THRESHOLD);
  const rncRule = PRESENCE.buyerRnc[type];
  if (rncRule === '1' && !given(b.rnc)) n.error('buyer.rnc', ECF_CODES.FieldRequired, `buyer.rnc is required for type ${type}`);
  if (rncRule === '0' && given(b.rnc)) n.error('buyer.rnc', ECF_CODES.FieldNotAllowed, `buyer.rnc is not allowed for type ${type}`);
  if (overThreshold && !given(b.rnc) && !given(b.foreignId)) {
    n.error('buyer.rnc', ECF_CODES.FieldRequired, 'buyer.rnc (or buyer.foreignId) is required for type 32 when MontoTotal is 250,000.00 or more');
  }
  if (PRESENCE.buyerForeignId[type] === '0' && given(b.foreignId)) {
    n.error('buyer.foreignId', ECF_CODES.FieldNotAllowed, `buyer.foreignId is not allowed for type ${type}`);
  }
  const foreignId = str(b.foreignId);
  if (foreignId && foreignId.length > 20) n.error('buyer.foreignId', ECF_CODES.InvalidFormat, 'buyer.foreignId may have at most 20 characters');
  const nameRule = PRESENCE.buyerName[type];
  if (nameRule === '1' && !given(b.name)) n.error('buyer.name', ECF_CODES.FieldRequired, `buyer.name is required for type ${type}`);
  if (overThreshold && !given(b.name)) {
    n.error('buyer.name', ECF_CODES.FieldRequired, 'buyer.name is required for type 32 when MontoTotal is 250,000.00 or more');
  }
  const name = str(b.name);
  if (name && name.length > 150) n.error('buyer.name', ECF_CODES.InvalidFormat, 'buyer.name may have at most 150 characters');
  if (!SCHEMA.buyerExtras[type]) {
    for (const key of ['email', 'contact', 'address', 'municipality', 'province', 'additionalInfo']) {
      if (given(b[key])) n.error(`buyer.${key}`, ECF_CODES.FieldNotAllowed, `buyer.${key} is not allowed for type ${type}`);
    }
  }
}

function checkReference(n: Notices, p: Obj, type: EcfType | null, issueDate: string): void {
  const ref = obj(p.reference);
  if (ref) {
    const ncf = str(ref.modifiedNcf);
    if (ncf && ![11, 13, 19].includes(ncf.length)) {
      n.error('reference.modifiedNcf', ECF_CODES.InvalidFormat, 'reference.modifiedNcf must have 11 (paper NCF), 13 (e-NCF) or 19 (old series) characters');
    }
    const refDate = date(ref.modifiedNcfDate);
    if (refDate && refDate > issueDate) {
      n.error('reference.modifiedNcfDate', ECF_CODES.DateAfterIssue, `reference.modifiedNcfDate ${refDate} is after the issue date ${issueDate}`);
    }
    const other = str(ref.otherIssuerRnc);
    if (other && !/^(\d{9}|\d{11})$/.test(other)) {
      n.error('reference.otherIssuerRnc', ECF_CODES.InvalidFormat, 'reference.otherIssuerRnc must be an RNC of 9 digits or a cédula of 11 digits');
    }
    if (type !== null && str(ref.modificationCode) === '5' && !MODIFICATION_5_TYPES.includes(type)) {
      n.error('reference.modificationCode', ECF_CODES.InvalidForType, `reference.modificationCode 5 (references a consumer e-CF) is only allowed for type 31, not type ${type}`);
    }
  }
  if (type === null || PRESENCE.reference[type] !== '1') return;
  if (!given(p.reference)) {
    n.error('reference', ECF_CODES.FieldRequired, `reference is required for type ${type} (with modifiedNcf, modifiedNcfDate and modificationCode)`);
    return;
  }
  if (!ref) return;
  for (const key of ['modifiedNcf', 'modifiedNcfDate', 'modificationCode']) {
    if (!given(ref[key])) n.error(`reference.${key}`, ECF_CODES.FieldRequired, `reference.${key} is required for type ${type}`);
  }
}

// ---------------------------------------------------------------------------
// Lines

function checkLine(
  n: Notices,
  raw: unknown,
  path: string,
  type: EcfType | null,
  documentIncludesTax: boolean,
  hasForeignCurrency: boolean,
): { line: NormalizedLine | null; indicator: BillingIndicator | null } {
  const l = obj(raw);
  if (!l) return { line: null, indicator: null };
  let readable = true;
  let indicatorKnown = true;

  // Treatment and rate.
  const givenTreatment = TAX_TREATMENTS.find((x) => x === l.taxTreatment);
  if (l.taxTreatment != null && !givenTreatment) readable = indicatorKnown = false;
  const treatment: TaxTreatment = givenTreatment ?? (type !== null ? SCHEMA.defaultTreatment[type] : 'taxed');
  if (givenTreatment && type !== null && !SCHEMA.lineTreatments[type].includes(givenTreatment)) {
    const allowed = SCHEMA.lineTreatments[type].map((x) => (x === 'taxed' && type === 46 ? 'taxed at 0 %' : x)).join(' or ');
    n.error(`${path}.taxTreatment`, ECF_CODES.InvalidForType, `taxTreatment ${givenTreatment} is not allowed for type ${type}: its lines are ${allowed}`);
  }
  const defaultRate: ItbisRate = type !== null ? SCHEMA.defaultRate[type] : 18;
  let rate: ItbisRate = defaultRate;
  if (l.itbisRate === null && l.taxTreatment == null && type !== null) {
    // An explicit null reads like "no ITBIS", but it means the type's default: say which one was taken.
    const took = treatment === 'taxed' ? `taxed at ${defaultRate} %` : treatment;
    n.warning(`${path}.itbisRate`, ECF_CODES.DefaultApplied, `${path}.itbisRate is null and taxTreatment is not given: the line was issued ${took}, the default for type ${type}`);
  }
  if (given(l.itbisRate)) {
    const r = integer(l.itbisRate);
    if (r === undefined) readable = indicatorKnown = false;
    else if (r !== 18 && r !== 16 && r !== 0) n.error(`${path}.itbisRate`, ECF_CODES.InvalidValue, 'itbisRate must be 18, 16 or 0');
    else if (treatment !== 'taxed') {
      n.error(`${path}.itbisRate`, ECF_CODES.FieldNotAllowed, `itbisRate applies only to taxed lines; this line is ${treatment}${givenTreatment ? '' : ` (the default for type ${type})`}`);
    } else if (type !== null && SCHEMA.itbisRates[type].length > 0 && !SCHEMA.itbisRates[type].includes(r)) {
      // (A type without taxed lines at all gets the taxTreatment error instead.)
      n.error(`${path}.itbisRate`, ECF_CODES.InvalidForType, `itbisRate ${r} is not allowed for type ${type}: only ${SCHEMA.itbisRates[type].join(', ')} %`);
    } else rate = r;
  }

  // Kind.
  const givenKind = l.kind === 'good' || l.kind === 'service' ? l.kind : undefined;
  if (l.kind != null && !givenKind) readable = false;
  const kinds = type !== null ? SCHEMA.lineKinds[type] : (['good', 'service'] as const);
  const kind: LineKind = givenKind ?? (kinds.length === 1 ? kinds[0]! : 'good');
  if (givenKind && !kinds.includes(givenKind)) {
    n.error(`${path}.kind`, ECF_CODES.InvalidForType, `lines of type ${type} must be services, not ${givenKind}s`);
  }

  // Amounts.
  if (!given(l.quantity)) n.error(`${path}.quantity`, ECF_CODES.FieldRequired, `${path}.quantity is required`);
  if (!given(l.unitPrice)) n.error(`${path}.unitPrice`, ECF_CODES.FieldRequired, `${path}.unitPrice is required`);
  const quantity = checkDecimal(n, `${path}.quantity`, l.quantity, { scale: 2, min: 'positive', integerDigits: 16 });
  const unitPrice = checkDecimal(n, `${path}.unitPrice`, l.unitPrice, { scale: 4, min: 'non-negative', integerDigits: 16 });
  const discount = l.discount == null ? ZERO : checkDecimal(n, `${path}.discount`, l.discount, AMOUNT);
  const surcharge = l.surcharge == null ? ZERO : checkDecimal(n, `${path}.surcharge`, l.surcharge, AMOUNT);
  const declaredAmount = l.declaredAmount == null ? null : checkDecimal(n, `${path}.declaredAmount`, l.declaredAmount, AMOUNT);
  if (type !== null && !SCHEMA.lineDiscounts[type]) {
    if (discount && !discount.isZero()) n.error(`${path}.discount`, ECF_CODES.FieldNotAllowed, `line discounts are not allowed for type ${type}`);
    if (surcharge && !surcharge.isZero()) n.error(`${path}.surcharge`, ECF_CODES.FieldNotAllowed, `line surcharges are not allowed for type ${type}`);
  }
  if (!quantity || !unitPrice || !discount || !surcharge || declaredAmount === undefined) readable = false;

  const unit = str(l.unitOfMeasure);
  if (unit && !isUnitCode(unit)) n.error(`${path}.unitOfMeasure`, ECF_CODES.InvalidValue, 'unitOfMeasure must be a unit code of the authority\'s table, 1 to 62');

  const retention = checkRetention(n, l, path, type, treatment);
  const additionalTaxes = checkAdditionalTaxes(n, l, path, type);
  const details = checkDetails(n, l.details, `${path}.details`, type);
  const foreignCurrency = checkLineForeignCurrency(n, l.foreignCurrency, `${path}.foreignCurrency`, hasForeignCurrency);
  if (retention === undefined || additionalTaxes === undefined || details === undefined || foreignCurrency === undefined) readable = false;

  const name = str(l.name);
  const priceIncludesTax = l.priceIncludesTax == null ? documentIncludesTax : bool(l.priceIncludesTax);
  const codes: NormalizedLine['codes'] = [];
  if (l.codes != null) {
    const list = arr(l.codes);
    if (!list) readable = false;
    for (const raw of list ?? []) {
      const c = obj(raw);
      const codeType = str(c?.type);
      const value = str(c?.value);
      if (codeType && value) codes.push({ type: codeType, value });
      else readable = false;
    }
  }
  if (!name || priceIncludesTax === undefined) readable = false;

  const indicator = indicatorKnown ? indicatorOf({ treatment, rate }) : null;
  if (!readable) return { line: null, indicator };
  const line: NormalizedLine = {
    name: name!,
    kind,
    taxTreatment: treatment,
    itbisRate: treatment === 'taxed' ? rate : null,
    quantity: quantity!,
    unitPrice: unitPrice!,
    discount: discount!,
    surcharge: surcharge!,
    priceIncludesTax: priceIncludesTax!,
    codes,
    retention: retention!,
    additionalTaxes: additionalTaxes!,
    details: details!,
    foreignCurrency: foreignCurrency!,
    unitOfMeasure: unit ?? null,
    description: str(l.description) ?? null,
    declaredAmount: declaredAmount!,
  };
  return { line, indicator };
}

/** undefined = unreadable (a shape error); null = none. */
function checkRetention(n: Notices, l: Obj, path: string, type: EcfType | null, treatment: TaxTreatment): NormalizedRetention | null | undefined {
  const rule = type !== null ? PRESENCE.retention[type] : '3';
  if (!given(l.retention)) {
    if (rule === '1') n.error(`${path}.retention`, ECF_CODES.FieldRequired, `${path}.retention is required on every line of type ${type}`);
    return l.retention == null ? null : undefined;
  }
  if (rule === '0') n.error(`${path}.retention`, ECF_CODES.FieldNotAllowed, `line retention is not allowed for type ${type}`);
  const r = obj(l.retention);
  if (!r) return undefined;
  const at = `${path}.retention`;
  let agent: NormalizedRetention['agent'] = null;
  if (given(r.agent)) {
    if (r.agent === '1' || r.agent === '2') agent = r.agent;
    else if (str(r.agent)) n.error(`${at}.agent`, ECF_CODES.InvalidValue, 'retention.agent must be 1 (retention) or 2 (perception)');
  } else if (rule === '1') agent = '1';
  const itbisWithheld = r.itbisWithheld == null ? null : checkDecimal(n, `${at}.itbisWithheld`, r.itbisWithheld, AMOUNT);
  const isrWithheld = r.isrWithheld == null ? null : checkDecimal(n, `${at}.isrWithheld`, r.isrWithheld, AMOUNT);
  if (type !== null) {
    if (itbisWithheld && !SCHEMA.itbisWithheld[type] && rule !== '0') {
      n.error(`${at}.itbisWithheld`, ECF_CODES.FieldNotAllowed, `retention.itbisWithheld is not allowed for type ${type}`);
    }
    if (SCHEMA.isrWithheldRequired[type] && r.isrWithheld == null) {
      n.error(`${at}.isrWithheld`, ECF_CODES.FieldRequired, `retention.isrWithheld is required on every line of type ${type}`);
    }
  }
  const itbisAllowed = type === null || SCHEMA.itbisWithheld[type];
  if (itbisAllowed && treatment === 'exempt' && agent === '1' && itbisWithheld && !itbisWithheld.isZero()) {
    n.error(`${at}.itbisWithheld`, ECF_CODES.InvalidValue, 'retention.itbisWithheld must be 0 on an exempt line withheld by a retention agent');
  }
  if (itbisWithheld === undefined || isrWithheld === undefined) return undefined;
  return { agent, itbisWithheld, isrWithheld };
}

function checkAdditionalTaxes(n: Notices, l: Obj, path: string, type: EcfType | null): NormalizedAdditionalTax[] | undefined {
  if (l.additionalTaxes == null) return [];
  const list = arr(l.additionalTaxes);
  if (!list) return undefined;
  const range = type !== null ? SCHEMA.additionalTaxes[type] : 'all';
  if (range === 'none' && list.length > 0) {
    n.error(`${path}.additionalTaxes`, ECF_CODES.FieldNotAllowed, `additionalTaxes are not allowed for type ${type}`);
  }
  const details = obj(l.details) ?? {};
  const out: NormalizedAdditionalTax[] = [];
  let readable = true;
  list.forEach((raw, j) => {
    const at = `${path}.additionalTaxes[${j}]`;
    const tax = obj(raw);
    const code = tax ? str(tax.code) : undefined;
    if (!tax || !code || !/^0(0[1-9]|[12]\d|3\d)$/.test(code)) {
      readable = false;
      return;
    }
    if (range === 'otros' && !TAX_CODE.otros.test(code)) {
      n.error(`${at}.code`, ECF_CODES.InvalidForType, `additional tax ${code} is not allowed for type ${type}: only codes 001 to 005`);
    }
    if (!given(tax.rate)) n.error(`${at}.rate`, ECF_CODES.FieldRequired, `${at}.rate is required (TasaImpuestoAdicional)`);
    const rate = checkDecimal(n, `${at}.rate`, tax.rate, { scale: 2, min: 'positive', integerDigits: 3 });
    const amounts = {
      iscEspecifico: [TAX_CODE.especifico, '006 to 022'],
      iscAdvalorem: [TAX_CODE.advalorem, '023 to 039'],
      otros: [TAX_CODE.otros, '001 to 005'],
    } as const;
    const read: Partial<Record<keyof typeof amounts, Dec>> = {};
    for (const [key, [codes, label]] of Object.entries(amounts) as [keyof typeof amounts, (typeof amounts)[keyof typeof amounts]][]) {
      const d = tax[key] == null ? ZERO : checkDecimal(n, `${at}.${key}`, tax[key], AMOUNT);
      if (d === undefined) readable = false;
      else if (!d.isZero() && !codes.test(code)) {
        n.error(`${at}.${key}`, ECF_CODES.FieldNotAllowed, `${key} applies to additional taxes ${label}, not ${code}`);
      }
      read[key] = d;
    }
    // Item fields each code range needs (NOTES §12.4), where the type allows the code at all.
    if (range === 'all') {
      const need = (key: string, why: string) => {
        if (!given(details[key])) n.error(`${path}.details.${key}`, ECF_CODES.FieldRequired, `details.${key} is required for additional tax ${code} (${why})`);
      };
      if (TAX_CODE.especifico.test(code)) {
        need('referenceQuantity', 'codes 006 to 022');
        need('referenceUnit', 'codes 006 to 022');
        need('subquantities', 'codes 006 to 022');
      }
      if (TAX_CODE.alcoholEspecifico.test(code)) need('alcoholDegrees', 'codes 006 to 018');
      if (TAX_CODE.advalorem.test(code)) need('referenceUnitPrice', 'codes 023 to 039');
    }
    if (rate === undefined && given(tax.rate)) readable = false;
    if (readable) {
      out.push({ code, rate: rate ?? ZERO, iscEspecifico: read.iscEspecifico!, iscAdvalorem: read.iscAdvalorem!, otros: read.otros! });
    }
  });
  return readable ? out : undefined;
}

function checkDetails(n: Notices, raw: unknown, path: string, type: EcfType | null): NormalizedDetails | null | undefined {
  if (raw == null) return null;
  const d = obj(raw);
  if (!d) return undefined;
  if (type !== null) {
    const notAllowed = (keys: readonly string[], allowed: boolean) => {
      if (allowed) return;
      for (const key of keys) if (given(d[key])) n.error(`${path}.${key}`, ECF_CODES.FieldNotAllowed, `details.${key} is not allowed for type ${type}`);
    };
    notAllowed(['referenceQuantity', 'referenceUnit', 'subquantities', 'alcoholDegrees', 'referenceUnitPrice'], SCHEMA.referenceDetails[type]);
    notAllowed(['manufactureDate', 'expiryDate'], SCHEMA.itemDates[type]);
    notAllowed(['mining'], SCHEMA.mining[type]);
  }
  let readable = true;
  const optDec = (key: string, rule: DecimalRule, v: unknown = d[key], at = `${path}.${key}`): Dec | null => {
    if (v == null) return null;
    const x = checkDecimal(n, at, v, rule);
    if (x === undefined) readable = false;
    return x ?? null;
  };
  const optStr = (v: unknown): string | null => {
    if (v == null) return null;
    const s = str(v);
    if (s === undefined) readable = false;
    return s ?? null;
  };
  const unit = (v: unknown, at: string): string | null => {
    const s = optStr(v);
    if (s && !isUnitCode(s)) n.error(at, ECF_CODES.InvalidValue, `${at} must be a unit code of the authority's table, 1 to 62`);
    return s;
  };
  const subquantities: NormalizedDetails['subquantities'] = [];
  if (d.subquantities != null) {
    const list = arr(d.subquantities);
    if (!list) readable = false;
    (list ?? []).forEach((raw, k) => {
      const s = obj(raw);
      const at = `${path}.subquantities[${k}]`;
      const quantity = s ? optDec('quantity', { scale: 3, min: 'non-negative', integerDigits: 16 }, s.quantity, `${at}.quantity`) : null;
      const unitCode = s ? unit(s.unitCode, `${at}.unitCode`) : null;
      if (quantity && unitCode) subquantities.push({ quantity, unitCode });
      else readable = false;
    });
  }
  const m = d.mining == null ? null : obj(d.mining);
  if (d.mining != null && !m) readable = false;
  const optInt = (v: unknown, at: string): number | null => {
    if (v == null) return null;
    const i = integer(v);
    if (i === undefined) readable = false;
    // TipoAfiliacion and Liquidacion: 1 or 2 in the XSD.
    else if (i !== 1 && i !== 2) n.error(at, ECF_CODES.InvalidValue, `${at} must be 1 or 2`);
    return i ?? null;
  };
  const out: NormalizedDetails = {
    referenceQuantity: optDec('referenceQuantity', AMOUNT),
    referenceUnit: unit(d.referenceUnit, `${path}.referenceUnit`),
    subquantities,
    alcoholDegrees: optDec('alcoholDegrees', { scale: 2, min: 'positive', integerDigits: 3 }),
    referenceUnitPrice: optDec('referenceUnitPrice', { scale: 2, min: 'positive', integerDigits: 16 }),
    manufactureDate: optStr(d.manufactureDate),
    expiryDate: optStr(d.expiryDate),
    mining: m
      ? {
          netWeightKilogram: optDec('netWeightKilogram', AMOUNT, m.netWeightKilogram, `${path}.mining.netWeightKilogram`),
          netWeightMining: optDec('netWeightMining', AMOUNT, m.netWeightMining, `${path}.mining.netWeightMining`),
          affiliationType: optInt(m.affiliationType, `${path}.mining.affiliationType`),
          settlement: optInt(m.settlement, `${path}.mining.settlement`),
        }
      : null,
  };
  return readable ? out : undefined;
}

function checkLineForeignCurrency(n: Notices, raw: unknown, path: string, documentHasIt: boolean): NormalizedLineForeignCurrency | null | undefined {
  if (raw == null) return null;
  const f = obj(raw);
  if (!f) return undefined;
  if (!documentHasIt) n.error(path, ECF_CODES.FieldNotAllowed, `${path} needs the document's foreignCurrency (currency and exchangeRate)`);
  let readable = true;
  const read = (key: string, scale: number): Dec | null => {
    if (f[key] == null) return null;
    const d = checkDecimal(n, `${path}.${key}`, f[key], { scale, min: 'non-negative', integerDigits: 16 });
    if (d === undefined) readable = false;
    return d ?? null;
  };
  const out = { unitPrice: read('unitPrice', 4), discount: read('discount', 2), surcharge: read('surcharge', 2), lineAmount: read('lineAmount', 2) };
  return readable ? out : undefined;
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

// ---------------------------------------------------------------------------
// Global adjustments

/** null = unreadable. `groups` = the billing indicators the lines use, when every line could be read. */
function checkAdjustments(n: Notices, p: Obj, type: EcfType | null, groups: Set<BillingIndicator> | null): AdjustmentInput[] | null {
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

// ---------------------------------------------------------------------------
// Foreign currency and passthrough blocks

const FOREIGN_TOTAL_GROUPS: Record<string, readonly BillingIndicator[]> = {
  montoGravadoTotal: [1, 2, 3],
  montoGravadoI1: [1],
  montoGravadoI2: [2],
  montoGravadoI3: [3],
  montoExento: [4],
  totalItbis: [1, 2, 3],
  totalItbis1: [1],
  totalItbis2: [2],
  totalItbis3: [3],
  montoTotal: [0, 1, 2, 3, 4],
};

function typeIndicators(type: EcfType): Set<BillingIndicator> {
  const out = new Set<BillingIndicator>();
  for (const t of SCHEMA.lineTreatments[type]) {
    if (t === 'exempt') out.add(4);
    else if (t === 'non_invoiceable') out.add(0);
    else for (const r of SCHEMA.itbisRates[type]) out.add(INDICATOR_OF_RATE[r]);
  }
  return out;
}

function checkForeignCurrency(n: Notices, p: Obj, type: EcfType | null): void {
  const fc = obj(p.foreignCurrency);
  if (!fc) return;
  const currency = str(fc.currency);
  if (currency && !(CURRENCIES as readonly string[]).includes(currency)) {
    n.error('foreignCurrency.currency', ECF_CODES.InvalidValue, `foreignCurrency.currency must be a code of Tabla II: ${CURRENCIES.join(', ')}`);
  }
  checkDecimal(n, 'foreignCurrency.exchangeRate', fc.exchangeRate, { scale: 4, min: 'positive', integerDigits: 3 });
  const totals = obj(fc.totals);
  if (!totals) return;
  const groups = type !== null ? typeIndicators(type) : null;
  for (const [key, needs] of Object.entries(FOREIGN_TOTAL_GROUPS)) {
    if (totals[key] == null) continue;
    checkDecimal(n, `foreignCurrency.totals.${key}`, totals[key], AMOUNT);
    if (groups && !needs.some((g) => groups.has(g))) {
      n.error(`foreignCurrency.totals.${key}`, ECF_CODES.FieldNotAllowed, `foreignCurrency.totals.${key} is not allowed for type ${type}`);
    }
  }
}

function checkPassthrough(n: Notices, p: Obj, type: EcfType | null): void {
  const shipping = obj(p.shipping);
  if (shipping) {
    for (const key of ['grossWeight', 'netWeight', 'packageCount']) checkDecimal(n, `shipping.${key}`, shipping[key], AMOUNT);
    // VolumenBulto, TotalFob, Seguro, Flete and OtrosGastos are "greater than zero" in the XSD.
    checkDecimal(n, 'shipping.volume', shipping.volume, POSITIVE_AMOUNT);
    for (const key of ['grossWeightUnit', 'netWeightUnit', 'packageUnit', 'volumeUnit']) {
      const s = str(shipping[key]);
      if (s && !isUnitCode(s)) n.error(`shipping.${key}`, ECF_CODES.InvalidValue, `shipping.${key} must be a unit code of the authority's table, 1 to 62`);
    }
    const exp = obj(shipping.export);
    if (exp) {
      for (const key of ['totalFob', 'insurance', 'freight', 'otherCharges']) checkDecimal(n, `shipping.export.${key}`, exp[key], POSITIVE_AMOUNT);
      checkDecimal(n, 'shipping.export.totalCif', exp.totalCif, AMOUNT);
    }
  }
  const subtotals = arr(p.subtotals);
  if (subtotals && subtotals.length > 20) n.error('subtotals', ECF_CODES.TooManyItems, 'subtotals may hold at most 20 entries');
  const pages = arr(p.pagination);
  if (pages && type !== null && pages.length > SCHEMA.maxLines[type]) {
    n.error('pagination', ECF_CODES.TooManyItems, `pagination may hold at most ${SCHEMA.maxLines[type]} pages for type ${type}`);
  }
  checkInformative(n, 'subtotals', ['Subtotales', 'Subtotal'], SUBTOTAL_ELEMENTS, subtotals, type, { min: 0, max: 99 }, new Set());
  checkInformative(n, 'pagination', ['Paginacion', 'Pagina'], PAGE_ELEMENTS, pages, type, { min: 1, max: 1000 }, PAGE_POSITIVE);
  if (type === null) return;
  if (given(p.shipping) && !SCHEMA.shipping[type]) {
    n.error('shipping', ECF_CODES.FieldNotAllowed, `shipping is not allowed for type ${type}`);
  } else if (shipping && given(shipping.export) && !SCHEMA.exportShipping[type]) {
    n.error('shipping.export', ECF_CODES.FieldNotAllowed, `shipping.export is only allowed for type 46, not type ${type}`);
  }
  const transport = obj(p.transport);
  if (type === 46) {
    // Alfa3/35/60 in the 46 schema: a non-digit, non-digits, a letter — 3 characters at least.
    const exp = obj(shipping?.export);
    const short = (path: string, v: unknown) => {
      const t = str(v);
      if (t && t.length < 3) n.error(path, ECF_CODES.InvalidFormat, `${path} must have at least 3 letters for type 46`);
    };
    short('shipping.export.deliveryTerms', exp?.deliveryTerms);
    short('shipping.export.customsRegime', exp?.customsRegime);
    short('transport.originCountry', transport?.originCountry);
    short('transport.destinationCountry', transport?.destinationCountry);
  }
  const allowed: readonly TransportField[] = SCHEMA.transport[type];
  if (given(p.transport) && allowed.length === 0) {
    n.error('transport', ECF_CODES.FieldNotAllowed, `transport is not allowed for type ${type}`);
  } else if (transport) {
    for (const key of [...TRANSPORT_BASIC, ...TRANSPORT_EXPORT]) {
      if (given(transport[key]) && !allowed.includes(key)) {
        n.error(`transport.${key}`, ECF_CODES.FieldNotAllowed, `transport.${key} is not allowed for type ${type}`);
      }
    }
  }
}

/** Subtotals and pages: each field needs an element in the type's XSD, amounts its format, integers its range. */
function checkInformative(
  n: Notices,
  name: string,
  at: readonly string[],
  elements: Readonly<Record<string, readonly string[]>>,
  list: unknown[] | undefined,
  type: EcfType | null,
  range: { min: number; max: number },
  positive: ReadonlySet<string>,
): void {
  (list ?? []).forEach((raw, i) => {
    const entry = obj(raw);
    if (!entry) return;
    for (const [key, element] of Object.entries(elements)) {
      const v = entry[key];
      if (v == null) continue;
      const path = `${name}[${i}].${key}`;
      if (type !== null && !hasElement(type, [...at, ...element])) {
        n.error(path, ECF_CODES.FieldNotAllowed, `${path} is not allowed for type ${type}: its schema has no ${element.at(-1)}`);
        continue;
      }
      if (key === 'description') continue;
      const whole = integer(v);
      if (['number', 'order', 'lines', 'lineFrom', 'lineTo'].includes(key)) {
        if (whole !== undefined && (whole < range.min || whole > range.max)) {
          n.error(path, ECF_CODES.OutOfRange, `${path} must be from ${range.min} to ${range.max}`);
        }
      } else checkDecimal(n, path, v, positive.has(key) ? { ...AMOUNT, min: 'positive' } : AMOUNT);
    }
  });
}

// ---------------------------------------------------------------------------
// The computed totals must fit the authority's fields.

const GROUP_TOTAL: Record<1 | 2 | 3 | 4, keyof ComputedDocument['totals']> = { 1: 'montoGravadoI1', 2: 'montoGravadoI2', 3: 'montoGravadoI3', 4: 'montoExento' };

function checkComputedTotals(n: Notices, p: Obj, computed: ComputedDocument, adjustments: readonly AdjustmentInput[]): void {
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

// ---------------------------------------------------------------------------
// Tolerance warnings (NOTES §12.3): never errors.

const DECLARED_TOTALS: Record<string, (c: ComputedDocument) => Dec | undefined> = {
  montoGravadoTotal: (c) => c.totals.montoGravadoTotal,
  montoExento: (c) => c.totals.montoExento,
  totalItbis: (c) => c.totals.totalItbis,
  montoImpuestoAdicional: (c) => c.totals.montoImpuestoAdicional,
  montoTotal: (c) => c.totals.montoTotal,
};

function toleranceWarnings(n: Notices, p: Obj, lines: readonly NormalizedLine[], computed: ComputedDocument): void {
  const one = new Dec(1);
  lines.forEach((l, i) => {
    const c = computed.lines[i];
    if (!l.declaredAmount || !c) return;
    const diff = l.declaredAmount.minus(c.amount).abs();
    if (diff.gt(one)) {
      n.warning(
        `lines[${i}].declaredAmount`,
        ECF_CODES.ToleranceExceeded,
        `lines[${i}].declaredAmount ${l.declaredAmount.toFixed(2)} differs from the computed MontoItem ${c.amount.toFixed(2)} by ${diff.toFixed(2)}, more than the 1.00 a line allows`,
      );
    }
  });
  const declared = obj(p.declaredTotals);
  if (!declared) return;
  const allowance = new Dec(lines.length);
  for (const [key, pick] of Object.entries(DECLARED_TOTALS)) {
    const d = decimal(declared[key]);
    if (d === undefined) continue;
    const value = pick(computed) ?? ZERO;
    const diff = d.minus(value).abs();
    if (diff.gt(allowance)) {
      n.warning(
        `declaredTotals.${key}`,
        ECF_CODES.ToleranceExceeded,
        `declaredTotals.${key} ${d.toFixed(2)} differs from the computed ${value.toFixed(2)} by ${diff.toFixed(2)}, more than the ${allowance.toFixed(2)} allowed for ${lines.length} line${lines.length === 1 ? '' : 's'}`,
      );
    }
  }
}
