import { ECF_CODES } from '../codes.js';
import { SCHEMA, TRANSPORT_BASIC, TRANSPORT_EXPORT, isUnitCode, type TransportField } from '../matrix.js';
import type { EcfType } from '../payload.js';
import { PAGE_ELEMENTS, PAGE_POSITIVE, SUBTOTAL_ELEMENTS, hasElement } from '../passthrough.js';
import { AMOUNT, POSITIVE_AMOUNT, checkDecimal, type SectionNotices } from './notices.js';
import { arr, given, integer, obj, str, type Obj } from './readers.js';

/** Passthrough blocks: shipping (and its export part), transport, subtotals and pagination, by type. */

export function checkPassthrough(n: SectionNotices, p: Obj, type: EcfType | null): void {
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
  n: SectionNotices,
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
      } else checkDecimal(n, path, v, positive.has(key) ? POSITIVE_AMOUNT : AMOUNT);
    }
  });
}
