import { ECF_CODES } from '../codes.js';
import { GIFT_CERTIFICATE_TYPES, PRESENCE } from '../matrix.js';
import type { PaymentTerms } from '../model.js';
import type { EcfType } from '../payload.js';
import { AMOUNT, checkDecimal, type SectionNotices } from './notices.js';
import { arr, date, given, obj, str, type Obj } from './readers.js';

/** Payment: condition, due date and methods, by type. Returns the terms, or null when a method could not be read. */
export function checkPayment(n: SectionNotices, p: Obj, type: EcfType | null): PaymentTerms | null {
  const payment = obj(p.payment) ?? {};
  const condition = (str(payment.condition) as PaymentTerms['condition'] | undefined) ?? null;
  const dueDate = date(payment.dueDate) ?? null;
  const methods: PaymentTerms['methods'] = [];
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
