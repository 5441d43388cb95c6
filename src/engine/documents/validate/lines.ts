import { ZERO, type Dec } from '../../money.js';
import { ECF_CODES } from '../codes.js';
import { PRESENCE, SCHEMA, TAX_CODE, isUnitCode, type LineKind } from '../matrix.js';
import type {
  NormalizedAdditionalTax,
  NormalizedDetails,
  NormalizedLine,
  NormalizedLineForeignCurrency,
  NormalizedRetention,
} from '../model.js';
import { TAX_TREATMENTS, type EcfType, type TaxTreatment } from '../payload.js';
import { indicatorOf, type BillingIndicator, type ItbisRate } from '../totals.js';
import { AMOUNT, checkDecimal, type DecimalRule, type SectionNotices } from './notices.js';
import { arr, bool, given, integer, obj, str, type Obj } from './readers.js';

/**
 * Lines: treatment and rate, kind, amounts, retention, additional taxes,
 * details and the line's foreign-currency amounts, by type. A line that cannot
 * be read whole comes back null; its billing indicator still comes back when
 * known, for the global adjustments' groups.
 */

export interface CheckedLine {
  line: NormalizedLine | null;
  indicator: BillingIndicator | null;
}

/** Every line of the payload, in order. */
export function checkLines(n: SectionNotices, p: Obj, type: EcfType | null, pricesIncludeTax: boolean): CheckedLine[] {
  const rawLines = arr(p.lines) ?? [];
  if (type !== null && rawLines.length > SCHEMA.maxLines[type]) {
    n.error('lines', ECF_CODES.TooManyItems, `lines may hold at most ${SCHEMA.maxLines[type]} items for type ${type}`);
  }
  const hasForeignCurrency = given(p.foreignCurrency);
  return rawLines.map((raw, i) => checkLine(n, raw, `lines[${i}]`, type, pricesIncludeTax, hasForeignCurrency));
}

function checkLine(
  n: SectionNotices,
  raw: unknown,
  path: string,
  type: EcfType | null,
  documentIncludesTax: boolean,
  hasForeignCurrency: boolean,
): CheckedLine {
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
function checkRetention(n: SectionNotices, l: Obj, path: string, type: EcfType | null, treatment: TaxTreatment): NormalizedRetention | null | undefined {
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

function checkAdditionalTaxes(n: SectionNotices, l: Obj, path: string, type: EcfType | null): NormalizedAdditionalTax[] | undefined {
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

function checkDetails(n: SectionNotices, raw: unknown, path: string, type: EcfType | null): NormalizedDetails | null | undefined {
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

function checkLineForeignCurrency(n: SectionNotices, raw: unknown, path: string, documentHasIt: boolean): NormalizedLineForeignCurrency | null | undefined {
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
