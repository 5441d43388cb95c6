import { Dec } from '../../money.js';
import { ECF_CODES } from '../codes.js';
import { PLACES } from '../code-tables.generated.js';
import { CONSUMER_THRESHOLD, PRESENCE, SCHEMA } from '../matrix.js';
import type { EcfType } from '../payload.js';
import type { ComputedDocument } from '../totals.js';
import type { SectionNotices } from './notices.js';
import { given, obj, str, type Obj } from './readers.js';

/**
 * Buyer: identity, its per-type presence and the type-32 rule that MontoTotal
 * of 250,000.00 or more needs the buyer. That rule reads the totals, so the
 * whole section runs after them (prepare.ts); `computed` is null when the
 * totals could not be computed.
 */

const THRESHOLD = new Dec(CONSUMER_THRESHOLD);

export function checkBuyer(n: SectionNotices, p: Obj, type: EcfType | null, computed: ComputedDocument | null): void {
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
