import { ECF_CODES } from '../codes.js';
import { PRESENCE, SCHEMA } from '../matrix.js';
import type { EcfType } from '../payload.js';
import type { DocumentSettings } from '../settings-shape.js';
import { SIGNED_AMOUNT, checkDecimal, type SectionNotices } from './notices.js';
import { bool, date, decimal, given, obj, str, type Obj } from './readers.js';

/** Header and sequence: the e-NCF and its expiry (by sequence mode), the dates and the header's per-type fields. */

/** The settings the pipeline reads (settings.ts reads them; settings-shape.ts is their type) and the day it runs on. */
export interface ValidationContext extends DocumentSettings {
  /** Dominican calendar date, YYYY-MM-DD. */
  readonly today: string;
}

export function checkSequence(n: SectionNotices, p: Obj, type: EcfType | null, context: ValidationContext, issueDate: string): void {
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

export function checkHeader(n: SectionNotices, p: Obj, type: EcfType | null, context: ValidationContext, issueDate: string): void {
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
