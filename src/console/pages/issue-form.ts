import type { FieldError } from '../../engine/errors.js';
import { t, type Lang } from '../i18n/index.js';
import { ruleMessage } from '../i18n/rules.js';

/**
 * The issue form's fields and the payload they make. The form's field names
 * are the engine's own paths (`buyer.rnc`, `lines[0].unitPrice`), so an error
 * the engine reports lands beside the field that caused it.
 */
export const LINE_FIELDS = ['name', 'quantity', 'unitPrice', 'itbisRate', 'discount'] as const;
export type LineField = (typeof LINE_FIELDS)[number];
export type LineValues = Record<LineField, string>;

/**
 * The types a seller issues to its customers from the form. Purchases (41),
 * minor expenses (43) and payments abroad (47) carry retentions per line and
 * no income type: they are issued through the API, the CLI or the folder.
 */
export const FORM_TYPES = [31, 32, 33, 34, 44, 45, 46] as const;
/** The notes, which name the document they modify. */
export const NOTE_TYPES: readonly string[] = ['33', '34'];
/** The line's ITBIS choice that means an exempt line (taxTreatment 'exempt', no rate). */
export const EXEMPT = 'E';

export interface IssueForm {
  readonly type: string;
  readonly incomeType: string;
  readonly buyerRnc: string;
  readonly buyerName: string;
  readonly paymentCondition: string;
  /** payment.dueDate (YYYY-MM-DD), which a credit sale of some types needs. */
  readonly dueDate: string;
  /** reference.*: the document a note modifies. */
  readonly modifiedNcf: string;
  readonly modifiedNcfDate: string;
  readonly modificationCode: string;
  readonly idempotencyKey: string;
  readonly lines: LineValues[];
}

/** Empty lines a form without JavaScript offers; "add line" adds one more. */
export const EMPTY_LINES = 3;
/** A form is a few dozen lines; beyond this the API is the way. */
export const MAX_LINES = 200;

export const emptyLine = (): LineValues => ({ name: '', quantity: '1', unitPrice: '', itbisRate: '18', discount: '' });

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/** The form as posted (urlencoded, or the preview's JSON of the same names): missing fields are empty. */
export function readForm(body: unknown): IssueForm {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const indexes = new Set<number>();
  for (const k of Object.keys(b)) {
    const m = /^lines\[(\d{1,3})\]\./.exec(k);
    if (m && Number(m[1]) < MAX_LINES) indexes.add(Number(m[1]));
  }
  const lines = [...indexes].sort((a, c) => a - c).map((i) => Object.fromEntries(LINE_FIELDS.map((f) => [f, str(b[`lines[${i}].${f}`])])) as LineValues);
  return {
    type: str(b.type) || '31',
    incomeType: str(b.incomeType) || '01',
    buyerRnc: str(b['buyer.rnc']),
    buyerName: str(b['buyer.name']),
    paymentCondition: str(b['payment.condition']) || '1',
    dueDate: str(b['payment.dueDate']),
    modifiedNcf: str(b['reference.modifiedNcf']).toUpperCase(),
    modifiedNcfDate: str(b['reference.modifiedNcfDate']),
    modificationCode: str(b['reference.modificationCode']),
    idempotencyKey: str(b.idempotencyKey),
    lines,
  };
}

const isBlank = (line: LineValues): boolean => !line.name && !line.unitPrice && !line.discount;

/**
 * The engine's payload, leaving out blank lines (the empty rows a form
 * offers) and empty fields (so a missing one is "required", not a bad
 * pattern). `rows[k]` is the form row of the payload's line k.
 */
export function toPayload(form: IssueForm): { payload: Record<string, unknown>; rows: number[] } {
  const rows: number[] = [];
  const lines: Record<string, string>[] = [];
  form.lines.forEach((line, i) => {
    if (isBlank(line)) return;
    rows.push(i);
    const fields: Record<string, string> = Object.fromEntries(LINE_FIELDS.filter((f) => line[f] !== '').map((f) => [f, line[f]]));
    if (fields.itbisRate === EXEMPT) {
      delete fields.itbisRate;
      fields.taxTreatment = 'exempt';
    }
    lines.push(fields);
  });
  const given = (pairs: [string, string][]) => Object.fromEntries(pairs.filter(([, v]) => v !== ''));
  const buyer = given([['rnc', form.buyerRnc], ['name', form.buyerName]]);
  const reference = given([['modifiedNcf', form.modifiedNcf], ['modifiedNcfDate', form.modifiedNcfDate], ['modificationCode', form.modificationCode]]);
  return {
    payload: {
      type: form.type,
      ...(form.incomeType && { incomeType: form.incomeType }),
      ...(Object.keys(buyer).length > 0 && { buyer }),
      payment: { condition: form.paymentCondition, ...(form.dueDate && { dueDate: form.dueDate }) },
      ...(Object.keys(reference).length > 0 && { reference }),
      lines,
    },
    rows,
  };
}

/** The form's controls outside the lines, named by the engine's paths. */
const FORM_FIELDS = [
  'type', 'incomeType', 'buyer.rnc', 'buyer.name', 'payment.condition', 'payment.dueDate',
  'reference.modifiedNcf', 'reference.modifiedNcfDate', 'reference.modificationCode',
] as const;

/** Errors by the form's field name; `top` holds those no field shows. */
export interface FormErrors {
  readonly byField: Record<string, string>;
  readonly top: string[];
}

/** An engine error in the page's language (a missing field reads 'issue.required' through the catalogue). */
function message(lang: Lang, e: FieldError): string {
  return ruleMessage(lang, e);
}

/** Maps the engine's error paths to the form's fields (payload line k is form row rows[k]). */
export function formErrors(lang: Lang, errors: readonly FieldError[], rows: readonly number[]): FormErrors {
  const byField: Record<string, string> = {};
  const top: string[] = [];
  const put = (field: string, text: string) => {
    byField[field] = byField[field] ? `${byField[field]} ${text}` : text;
  };
  for (const e of errors) {
    const text = message(lang, e);
    const line = /^lines\[(\d+)\](?:\.(\w+))?/.exec(e.path);
    if (line) {
      const row = rows[Number(line[1])] ?? Number(line[1]);
      // The exempt choice is the ITBIS control's: its taxTreatment errors belong there.
      const f = (line[2] === 'taxTreatment' ? 'itbisRate' : line[2]) as LineField | undefined;
      if (f && (LINE_FIELDS as readonly string[]).includes(f)) put(`lines[${row}].${f}`, text);
      else top.push(t(lang, 'issue.lineError', { n: row + 1, message: `${e.path.replace(/^lines\[\d+\]\.?/, '')} ${text}`.trim() }));
    } else if (e.path === 'lines') put('lines', text);
    else if ((FORM_FIELDS as readonly string[]).includes(e.path)) put(e.path, text);
    else if (e.path === 'buyer' || e.path.startsWith('buyer.')) put('buyer.rnc', text);
    else if (e.path === 'payment' || e.path.startsWith('payment.')) put('payment.condition', text);
    else if (e.path === 'reference' || e.path.startsWith('reference.')) put('reference.modifiedNcf', text);
    else top.push(e.path && e.path !== '(body)' ? `${e.path}: ${text}` : text);
  }
  return { byField, top };
}

/** The HTML id of a field: its name with the brackets and dots turned into dashes. */
export const fieldId = (name: string): string => `f-${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/-$/, '')}`;
