import { ECF_CODES } from '../codes.js';
import { MODIFICATION_5_TYPES, PRESENCE } from '../matrix.js';
import type { EcfType } from '../payload.js';
import type { SectionNotices } from './notices.js';
import { date, given, obj, str, type Obj } from './readers.js';

/** Reference (notes 33 and 34): the modified NCF, its date and the modification code. */

export function checkReference(n: SectionNotices, p: Obj, type: EcfType | null, issueDate: string): void {
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
