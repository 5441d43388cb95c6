import fc from 'fast-check';
import { CURRENCIES, PRESENCE, SCHEMA, TAX_CODE } from '../../../src/engine/documents/matrix.js';
import { PAGE_ELEMENTS, SUBTOTAL_ELEMENTS, hasElement } from '../../../src/engine/documents/passthrough.js';
import { ECF_TYPES, type EcfType } from '../../../src/engine/documents/payload.js';
import { PLACES } from '../../../src/engine/documents/code-tables.generated.js';

/**
 * Issue payloads (`IssueEcfCommand`) for the property tests: one generator
 * per e-CF type that walks the whole space the contract allows — every
 * optional block, global adjustments of both kinds and any size, foreign
 * currency, retentions, additional taxes of every code, Norma 10-07, strings
 * at each XSD maximum with accents and XML-special characters, 1 to 1,000
 * lines, amounts up to 16 integer digits. Most payloads follow the type's
 * rules (so they reach the XML); some step outside them on purpose (a string
 * one character too long, a field the type lacks, an amount too big), and
 * then the validator must name the field.
 */

export type Payload = Record<string, unknown>;

/** What each generated payload was built to exercise, for the run's statistics. */
export interface Generated {
  readonly payload: Payload;
  readonly type: EcfType;
  readonly lines: number;
  /** True when the generator stepped outside the contract on purpose. */
  readonly outside: boolean;
}

export const TODAY = '2026-03-10';

// ---------------------------------------------------------------------------
// Text: accents, XML-special characters, whitespace, a character outside the BMP.

const CHARS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...'áéíóúüñÁÉÍÓÚÜÑ¿¡°ºª',
  '&', '<', '>', '"', "'", ' ', ' ', '-', '.', ',', '/', '#', '(', ')', '%', '$', '€', '😀', ']]>', '\t', '\n',
];
const char = fc.constantFrom(...CHARS);

/** Text of 1 to `max` characters, often exactly `max` (counted in code points, as the XSD counts). */
export function text(max: number): fc.Arbitrary<string> {
  const join = (parts: string[]) => clip(parts.join(''), max);
  return fc.oneof(
    { weight: 180, arbitrary: fc.array(char, { minLength: 1, maxLength: Math.min(max, 12) }).map(join) },
    { weight: 120, arbitrary: fc.array(char, { minLength: max, maxLength: max + 4 }).map(join) },
    // Characters XML cannot carry as they are, or only as references: a carriage return, a control character.
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...CHARS, '\r', '\r\n', '\u0001', '\u001f', '\ufffe'), { minLength: 1, maxLength: Math.min(max, 8) }).map(join) },
  ).filter((s) => s.trim().length > 0);
}

/** `usual`, and one time in 40 `odd`. */
const rarely = <T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>) => fc.oneof({ weight: 39, arbitrary: usual }, { weight: 1, arbitrary: odd });

/** A well-formed value most of the time; now and then any text, which the contract's string type allows. */
const mostly = (good: fc.Arbitrary<string>, max = 30) => fc.oneof({ weight: 39, arbitrary: good }, { weight: 1, arbitrary: text(max) });

/** Cut to `max` UTF-16 units (the payload schema counts those; the XSD counts code points, never more), never halving a pair. */
function clip(s: string, max: number): string {
  let out = '';
  for (const c of s) {
    if (out.length + c.length > max) break;
    out += c;
  }
  return out;
}

/** Letters only (the XSD Alfa types: country names, customs regime). */
const letters = (max: number) =>
  fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzñáéíóú'), { minLength: 3, maxLength: max }).map((a) => a.join(''));

const digits = (n: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: n, maxLength: n }).map((a) => a.join(''));
const rnc = fc.oneof(digits(9), digits(11));
const place = fc.constantFrom(...Object.keys(PLACES));
const email = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,20}$/), fc.stringMatching(/^[a-z]{1,20}$/), fc.constantFrom('do', 'com', 'com.do'))
  .map(([user, host, tld]) => `${user}@${host}.${tld}`);
const unitCode = fc.integer({ min: 1, max: 62 }).map(String);

// ---------------------------------------------------------------------------
// Decimals as the contract takes them: JSON numbers or strings.

/** A decimal text with up to `scale` decimals and up to `integerDigits` integer digits, biased towards small values. */
export function decimal(scale: number, integerDigits = 16, min = 0): fc.Arbitrary<string> {
  const fraction = scale === 0 ? fc.constant('') : fc.integer({ min: 0, max: 10 ** scale - 1 }).map((f) => `.${String(f).padStart(scale, '0')}`);
  const top = 10n ** BigInt(integerDigits) - 1n;
  const upTo = (n: bigint) => fc.bigInt({ min: 0n, max: n < top ? n : top });
  const whole = fc.oneof({ weight: 6, arbitrary: upTo(999n) }, { weight: 3, arbitrary: upTo(99_999n) }, { weight: 1, arbitrary: upTo(top) });
  return fc
    .tuple(whole, fraction)
    .map(([w, f]) => `${w}${f}`.replace(/\.?0+$/, (m) => (m.startsWith('.') ? '' : m)) || '0')
    .map((s) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s))
    .filter((s) => Number(s) >= min);
}

/** Sometimes a JSON number (when it is exact), mostly a string. */
const asJson = (d: fc.Arbitrary<string>): fc.Arbitrary<string | number> =>
  fc.tuple(d, fc.boolean()).map(([s, num]) => (num && Number.isSafeInteger(Math.round(Number(s) * 10_000)) && String(Number(s)) === s ? Number(s) : s));

const positive = (scale: number, integerDigits = 16) => decimal(scale, integerDigits).filter((s) => Number(s) > 0);

// ---------------------------------------------------------------------------
// Lines

type Treatment = 'taxed' | 'exempt' | 'non_invoiceable';

interface DocFacts {
  readonly type: EcfType;
  readonly pricesIncludeTax: boolean;
  readonly foreignCurrency: boolean;
  readonly norm1007: boolean;
  /** One rate per additional-tax code in a document, as Tabla I has it. */
  readonly taxRates: Readonly<Record<string, string>>;
  /** The codes this document's lines draw from (a document carries at most 20). */
  readonly taxPool: readonly string[];
  /** Amounts up to 16 integer digits now and then; off for long documents, whose sums would overflow. */
  readonly hugeAmounts: boolean;
}

const TAX_CODES = Array.from({ length: 39 }, (_, i) => String(i + 1).padStart(3, '0'));
const TABLE_I_RATE = (code: string): string =>
  ({ '001': '10', '002': '2', '003': '16', '004': '10', '005': '17' })[code] ??
  (TAX_CODE.especifico.test(code) ? (Number(code) <= 18 ? '632.58' : Number(code) <= 20 ? '53.51' : '26.75') : Number(code) <= 35 ? '10' : '20');

function additionalTax(code: string, facts: DocFacts): fc.Arbitrary<Payload> {
  const amount = asJson(positive(2, 12));
  const rate = facts.taxRates[code] ?? TABLE_I_RATE(code);
  if (facts.norm1007 && (code === '002' || code === '004')) return fc.constant({ code, rate });
  if (TAX_CODE.otros.test(code)) return amount.map((otros) => ({ code, rate, otros }));
  if (TAX_CODE.especifico.test(code)) return amount.map((iscEspecifico) => ({ code, rate, iscEspecifico }));
  return amount.map((iscAdvalorem) => ({ code, rate, iscAdvalorem }));
}

/** The item details the codes need (NOTES §12.4), plus the optional ones the type has. */
function details(type: EcfType, codes: readonly string[]): fc.Arbitrary<Payload | undefined> {
  const needsReference = codes.some((c) => TAX_CODE.especifico.test(c));
  const needsAlcohol = codes.some((c) => TAX_CODE.alcoholEspecifico.test(c));
  const needsPrice = codes.some((c) => TAX_CODE.advalorem.test(c));
  const reference = SCHEMA.referenceDetails[type];
  return fc
    .record(
      {
        referenceQuantity: asJson(decimal(2, 12)),
        referenceUnit: unitCode,
        subquantities: fc.array(fc.record({ quantity: asJson(decimal(3, 12)), unitCode }), { minLength: 1, maxLength: 5 }),
        alcoholDegrees: positive(2, 3),
        referenceUnitPrice: positive(2, 12),
        manufactureDate: fc.constantFrom('2026-01-15', '2025-12-31'),
        expiryDate: fc.constantFrom('2027-01-15', '2026-12-31'),
        mining: fc.record(
          { netWeightKilogram: decimal(2, 12), netWeightMining: decimal(2, 12), affiliationType: rarely(fc.constantFrom(1, 2), fc.constant(3)), settlement: rarely(fc.constantFrom(1, 2), fc.constant(0)) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    )
    .map((d) => {
      const out: Payload = {};
      if (reference) {
        if (needsReference || d.referenceQuantity !== undefined) out.referenceQuantity = d.referenceQuantity ?? '1';
        if (needsReference || d.referenceUnit !== undefined) out.referenceUnit = d.referenceUnit ?? '1';
        if (needsReference || d.subquantities !== undefined) out.subquantities = d.subquantities ?? [{ quantity: '1', unitCode: '1' }];
        if (needsAlcohol || d.alcoholDegrees !== undefined) out.alcoholDegrees = d.alcoholDegrees ?? '40';
        if (needsPrice || d.referenceUnitPrice !== undefined) out.referenceUnitPrice = d.referenceUnitPrice ?? '100';
      }
      if (SCHEMA.itemDates[type]) {
        if (d.manufactureDate) out.manufactureDate = d.manufactureDate;
        if (d.expiryDate) out.expiryDate = d.expiryDate;
      }
      if (SCHEMA.mining[type] && d.mining) out.mining = d.mining;
      return Object.keys(out).length ? out : undefined;
    });
}

function line(facts: DocFacts): fc.Arbitrary<Payload> {
  const { type } = facts;
  const treatments = SCHEMA.lineTreatments[type] as readonly Treatment[];
  const rates = SCHEMA.itbisRates[type];
  const taxRange = SCHEMA.additionalTaxes[type];
  const taxCodes = (taxRange === 'all' ? TAX_CODES : taxRange === 'otros' ? TAX_CODES.filter((c) => TAX_CODE.otros.test(c)) : []).filter((c) =>
    facts.taxPool.includes(c),
  );
  return fc
    .record({
      treatment: fc.constantFrom(...treatments),
      sayTreatment: fc.boolean(),
      rate: rates.length ? fc.constantFrom(...rates) : fc.constant(null),
      sayRate: fc.constantFrom('yes', 'no', 'null'),
      name: text(80),
      kind: fc.constantFrom(...SCHEMA.lineKinds[type]),
      quantity: facts.hugeAmounts ? fc.oneof({ weight: 30, arbitrary: positive(2, 4) }, { weight: 1, arbitrary: positive(2, 16) }) : positive(2, 3),
      unitPrice: facts.hugeAmounts ? fc.oneof({ weight: 30, arbitrary: decimal(4, 6) }, { weight: 1, arbitrary: decimal(4, 16) }) : decimal(4, 5),
      discountShare: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) }),
      surcharge: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: decimal(2, 8) }),
      priceIncludesTax: fc.constantFrom(undefined, undefined, true, false),
      unitOfMeasure: fc.option(unitCode, { nil: undefined }),
      description: fc.option(text(1000), { nil: undefined, freq: 3 }),
      declaredAmount: fc.option(decimal(2, 12), { nil: undefined, freq: 4 }),
      codes: fc.option(fc.array(fc.record({ type: text(14), value: text(35) }), { minLength: 1, maxLength: 5 }), { nil: undefined, freq: 4 }),
      retention: fc.record({
        present: fc.boolean(),
        agent: fc.constantFrom('1', '2', undefined),
        itbisWithheld: fc.option(decimal(2, 10), { nil: undefined }),
        isrWithheld: decimal(2, 10),
      }),
      taxes: taxCodes.length ? fc.uniqueArray(fc.constantFrom(...taxCodes), { maxLength: 2 }) : fc.constant([] as string[]),
      foreign: fc.option(
        fc.record({ unitPrice: decimal(4, 10), discount: decimal(2, 10), surcharge: decimal(2, 10), lineAmount: decimal(2, 12) }, { requiredKeys: [] }),
        { nil: undefined, freq: 4 },
      ),
    })
    .chain((l) => {
      // Norma 10-07 documents: their 18 % lines are mostly telecom services carrying 002 and/or 004.
      const telecom = facts.norm1007 && l.treatment === 'taxed' && (l.rate ?? 18) === 18;
      const codes = telecom ? (['002', '004', '002,004', '002,004'] as const)[l.taxes.length % 4]!.split(',') : l.taxes.filter((c) => !facts.norm1007 || (c !== '002' && c !== '004'));
      return fc.tuple(fc.constant(l), fc.constant(codes), fc.tuple(...codes.map((c) => additionalTax(c, facts))), details(type, codes));
    })
    .map(([l, codes, taxes, det]) => {
      const out: Payload = { name: l.name, quantity: l.quantity, unitPrice: l.unitPrice };
      if (l.sayTreatment || l.treatment !== SCHEMA.defaultTreatment[type]) out.taxTreatment = l.treatment;
      if (l.treatment === 'taxed' && l.rate !== null) {
        if (l.sayRate === 'yes' || l.rate !== SCHEMA.defaultRate[type]) out.itbisRate = l.rate;
        else if (l.sayRate === 'null' && !out.taxTreatment) out.itbisRate = null;
      }
      if (l.kind !== 'good' || l.kind !== SCHEMA.lineKinds[type][0]) out.kind = l.kind;
      if (SCHEMA.lineDiscounts[type]) {
        const gross = exactTimes(String(l.quantity), String(l.unitPrice));
        const discount = centsOf(gross * l.discountShare);
        if (discount !== '0.00') out.discount = discount;
        if (l.surcharge !== undefined) out.surcharge = l.surcharge;
      }
      if (l.priceIncludesTax !== undefined && l.treatment === 'taxed' && !facts.norm1007) out.priceIncludesTax = l.priceIncludesTax;
      if (facts.norm1007 && l.treatment === 'taxed') out.priceIncludesTax = true;
      if (l.unitOfMeasure) out.unitOfMeasure = l.unitOfMeasure;
      if (l.description) out.description = l.description;
      if (l.declaredAmount) out.declaredAmount = l.declaredAmount;
      if (l.codes) out.codes = l.codes;
      const retention = PRESENCE.retention[type];
      if (retention === '1' || (retention === '2' && l.retention.present)) {
        const r: Payload = {};
        if (l.retention.agent) r.agent = l.retention.agent;
        if (SCHEMA.itbisWithheld[type] && l.retention.itbisWithheld !== undefined) {
          // FMT footnote 53: an exempt line withheld by a retention agent withholds no ITBIS.
          r.itbisWithheld = l.treatment === 'exempt' && (r.agent ?? '1') === '1' ? '0' : l.retention.itbisWithheld;
        }
        if (SCHEMA.isrWithheldRequired[type] || l.retention.present) r.isrWithheld = l.retention.isrWithheld;
        out.retention = r;
      }
      if (codes.length) out.additionalTaxes = taxes;
      if (det) out.details = det;
      if (facts.foreignCurrency && l.foreign && Object.keys(l.foreign).length) out.foreignCurrency = l.foreign;
      return out;
    });
}

/** quantity × price as a float, only to size a discount below it. */
const exactTimes = (a: string, b: string) => Number(a) * Number(b);
const centsOf = (x: number) => (Number.isFinite(x) && x < 1e15 ? (Math.floor(x * 100) / 100).toFixed(2) : '0.00');

// ---------------------------------------------------------------------------
// The document

const LINE_COUNTS = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 3, arbitrary: fc.integer({ min: 4, max: 12 }) }, { weight: 1, arbitrary: fc.integer({ min: 13, max: 60 }) });

export interface PayloadOptions {
  /** Line counts; by default mostly 1 to 3, sometimes up to 60. */
  readonly lineCount?: fc.Arbitrary<number>;
  /** Default true. */
  readonly hugeAmounts?: boolean;
}

function typedPayload(type: EcfType, options: PayloadOptions): fc.Arbitrary<Generated> {
  const facts = fc.record({
    pricesIncludeTax: PRESENCE.pricesIncludeTax[type] === '0' ? fc.constant(false) : fc.boolean(),
    foreignCurrency: fc.boolean(),
    norm1007: SCHEMA.norm1007[type] ? fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }) : fc.constant(false),
    taxPool: fc.oneof({ weight: 9, arbitrary: fc.shuffledSubarray(TAX_CODES, { minLength: 1, maxLength: 6 }) }, { weight: 1, arbitrary: fc.constant(TAX_CODES) }),
  });
  return facts.chain((f) => {
    const doc: DocFacts = { type, ...f, pricesIncludeTax: f.pricesIncludeTax || f.norm1007, taxRates: {}, hugeAmounts: options.hugeAmounts ?? true };
    return fc
      .record({
        lines: (options.lineCount ?? LINE_COUNTS).chain((n) => fc.array(line(doc), { minLength: n, maxLength: n })),
        header: header(type),
        adjustments: fc.array(adjustment(type), { maxLength: 4 }),
        currency: fc.record(
          {
            currency: fc.constantFrom(...CURRENCIES),
            exchangeRate: fc.oneof(positive(4, 2), positive(4, 3)),
            // Totals the client computed in the other currency are passed through as given.
            totals: fc.record({ montoTotal: decimal(2, 12), totalItbis: decimal(2, 12) }, { requiredKeys: [] }),
          },
          { requiredKeys: ['currency', 'exchangeRate'] },
        ),
        norm: fc.oneof(decimal(2, 3).map((amount) => ({ amount })), positive(2, 1).map((percentage) => ({ percentage }))),
        outside: outsideTheContract(type),
      })
      .map(({ lines, header: h, adjustments, currency, norm: n1007, outside }) => {
        const payload: Payload = { type: fcType(type, h.typeAsText), ...h.fields, lines };
        if (doc.pricesIncludeTax) payload.pricesIncludeTax = true;
        if (doc.foreignCurrency) payload.foreignCurrency = currency;
        const groups = new Set(lines.map((l) => groupOf(type, l)));
        const usable = adjustments.filter((a) => groups.has(a.affectsItbisRate as number));
        const norm = doc.norm1007 && groups.has(1) ? [{ line: 99, ...n1007, norm1007: true, description: 'Norma 10-07' }] : [];
        const all = [...usable.map((a, i) => ({ ...a, line: i + 1 })), ...norm];
        if (all.length && SCHEMA.globalAdjustments[type]) payload.globalAdjustments = all;
        if (outside) outside(payload);
        return { payload, type, lines: lines.length, outside: outside !== null };
      });
  });
}

const fcType = (type: EcfType, asText: boolean) => (asText ? String(type) : type);

/** IndicadorFacturacion of a generated line. */
function groupOf(type: EcfType, l: Payload): number {
  const treatment = (l.taxTreatment as Treatment | undefined) ?? SCHEMA.defaultTreatment[type];
  if (treatment === 'exempt') return 4;
  if (treatment === 'non_invoiceable') return 0;
  const rate = (l.itbisRate as number | null | undefined) ?? SCHEMA.defaultRate[type];
  return rate === 18 ? 1 : rate === 16 ? 2 : 3;
}

function adjustment(type: EcfType): fc.Arbitrary<Payload> {
  return fc
    .record({
      kind: fc.constantFrom('discount', 'surcharge', undefined),
      affectsItbisRate: fc.constantFrom(1, 2, 3, 4),
      value: fc.oneof(
        { weight: 2, arbitrary: decimal(2, 4).map((amount) => ({ amount })) },
        { weight: 1, arbitrary: decimal(2, 16).map((amount) => ({ amount })) },
        { weight: 3, arbitrary: positive(2, 2).map((percentage) => ({ percentage })) },
        { weight: 1, arbitrary: fc.constantFrom('100', '0.01', '999.99').map((percentage) => ({ percentage })) },
      ),
      description: fc.option(text(45), { nil: undefined }),
    })
    .map((a) => {
      const out: Payload = { line: 0, affectsItbisRate: a.affectsItbisRate, ...a.value };
      if (a.kind) out.kind = a.kind;
      if (a.description) out.description = a.description;
      void type;
      return out;
    });
}

function header(type: EcfType) {
  const buyerRule = PRESENCE.buyer[type];
  return fc
    .record({
      typeAsText: fc.boolean(),
      issueDate: fc.option(fc.constantFrom('2026-03-10', '2026-03-01', '2025-12-31'), { nil: undefined }),
      incomeType: fc.constantFrom('01', '02', '03', '04', '05', '06'),
      deferred: fc.boolean(),
      nonInvoiceable: fc.option(decimal(2, 10).chain((d) => fc.constantFrom(d, `-${d}`)), { nil: undefined, freq: 5 }),
      internalNumber: fc.option(text(20), { nil: undefined }),
      sellerCode: fc.option(text(60), { nil: undefined }),
      info: fc.option(fc.record({ issuer: text(250), buyer: text(150) }, { requiredKeys: [] }), { nil: undefined }),
      buyer: fc.record(
        {
          rnc,
          name: text(150),
          foreignId: text(20),
          email: mostly(email, 90),
          contact: text(80),
          address: text(100),
          municipality: mostly(place, 8),
          province: mostly(place, 8),
          additionalInfo: text(150),
        },
        { requiredKeys: [] },
      ),
      condition: fc.constantFrom('1', '2', '3'),
      methods: fc.option(
        fc.array(fc.record({ type: fc.constantFrom('1', '2', '3', '4', '5', '6', '7', '8'), amount: decimal(2, 12) }), { minLength: 1, maxLength: 7 }),
        { nil: undefined },
      ),
      reference: fc.record({
        modifiedNcf: fc.oneof(digits(10).map((d) => `E31${d}`), digits(8).map((d) => `B01${d}`), digits(16).map((d) => `A01${d}`)),
        modifiedNcfDate: fc.constantFrom('2025-11-15', '2025-12-31'),
        modificationCode: fc.constantFrom('1', '2', '3', '4'),
        otherIssuerRnc: fc.option(rnc, { nil: undefined }),
        present: fc.boolean(),
      }),
      shipping: fc.option(shipping(type), { nil: undefined, freq: 4 }),
      transport: fc.option(transport(type), { nil: undefined, freq: 4 }),
      subtotals: fc.option(fc.array(subtotal().map((x) => only(x, type, ['Subtotales', 'Subtotal'], SUBTOTAL_ELEMENTS)), { minLength: 1, maxLength: 3 }), { nil: undefined, freq: 6 }),
      pagination: fc.option(fc.array(page().map((x) => only(x, type, ['Paginacion', 'Pagina'], PAGE_ELEMENTS)), { minLength: 1, maxLength: 3 }), { nil: undefined, freq: 6 }),
      declaredTotals: fc.option(fc.record({ montoTotal: decimal(2, 12), totalItbis: decimal(2, 12) }, { requiredKeys: [] }), { nil: undefined, freq: 5 }),
    })
    .map((h) => {
      const fields: Payload = {};
      if (h.issueDate) fields.issueDate = h.issueDate;
      if (PRESENCE.incomeType[type] === '1') fields.incomeType = h.incomeType;
      if (h.deferred && PRESENCE.deferredDelivery[type] !== '0') fields.deferredDelivery = true;
      if (h.nonInvoiceable && SCHEMA.nonInvoiceable[type]) fields.nonInvoiceableAmount = h.nonInvoiceable;
      if (h.internalNumber) fields.internalNumber = h.internalNumber;
      if (h.sellerCode && SCHEMA.sellerCode[type]) fields.sellerCode = h.sellerCode;
      if (h.info) fields.additionalInfo = SCHEMA.buyerExtras[type] ? h.info : { issuer: h.info.issuer };
      if (buyerRule !== '0') {
        const b: Payload = {};
        if (PRESENCE.buyerRnc[type] !== '0' && (PRESENCE.buyerRnc[type] === '1' || h.buyer.rnc)) b.rnc = h.buyer.rnc ?? '131880681';
        if (PRESENCE.buyerName[type] === '1' || h.buyer.name) b.name = h.buyer.name ?? 'Comprador';
        if (PRESENCE.buyerForeignId[type] !== '0' && h.buyer.foreignId && !b.rnc) b.foreignId = h.buyer.foreignId;
        if (SCHEMA.buyerExtras[type]) {
          for (const k of ['email', 'contact', 'address', 'municipality', 'province', 'additionalInfo'] as const) if (h.buyer[k]) b[k] = h.buyer[k];
        }
        if (buyerRule === '1' || Object.keys(b).length) fields.buyer = b;
      }
      const payment: Payload = {};
      if (PRESENCE.paymentCondition[type] !== '0') payment.condition = h.condition;
      if (h.condition === '2' && PRESENCE.paymentDueDate[type] !== '0') payment.dueDate = '2026-04-30';
      if (h.methods && PRESENCE.paymentMethods[type] !== '0') payment.methods = h.methods.map((m) => (m.type === '5' && type !== 32 ? { ...m, type: '1' } : m));
      if (Object.keys(payment).length) fields.payment = payment;
      if (PRESENCE.reference[type] === '1' || h.reference.present) {
        const { present: _present, otherIssuerRnc, ...r } = h.reference;
        fields.reference = { ...r, ...(otherIssuerRnc && { otherIssuerRnc }) };
      }
      if (h.shipping && SCHEMA.shipping[type]) fields.shipping = h.shipping;
      if (h.transport && SCHEMA.transport[type].length) fields.transport = h.transport;
      if (h.subtotals) fields.subtotals = h.subtotals;
      if (h.pagination) fields.pagination = h.pagination;
      if (h.declaredTotals) fields.declaredTotals = h.declaredTotals;
      return { typeAsText: h.typeAsText, fields };
    });
}

function shipping(type: EcfType): fc.Arbitrary<Payload> {
  const exportBlock = fc.record(
    {
      loadingPortName: text(40),
      deliveryTerms: mostly(fc.constantFrom('FOB', 'CIF', 'EXW'), 5),
      customsRegime: mostly(letters(35), 40),
      departurePortName: text(40),
      unloadingPortName: text(40),
      totalFob: positive(2, 12),
      insurance: positive(2, 12),
      freight: positive(2, 12),
      otherCharges: positive(2, 12),
      totalCif: positive(2, 12),
    },
    { requiredKeys: [] },
  );
  return fc
    .record(
      {
        shipmentDate: fc.constantFrom('2026-03-01', '2026-03-10'),
        shipmentNumber: text(25),
        containerNumber: text(100),
        referenceNumber: mostly(digits(20), 25),
        grossWeight: decimal(2, 12),
        netWeight: decimal(2, 12),
        grossWeightUnit: unitCode,
        netWeightUnit: unitCode,
        packageCount: decimal(2, 12),
        packageUnit: unitCode,
        volume: decimal(2, 12),
        volumeUnit: unitCode,
        export: exportBlock,
      },
      { requiredKeys: [] },
    )
    .map((s) => {
      if (!SCHEMA.exportShipping[type]) delete s.export;
      return s;
    });
}

function transport(type: EcfType): fc.Arbitrary<Payload> {
  const all: Record<string, fc.Arbitrary<string>> = {
    driver: text(20),
    transportDocument: mostly(digits(20), 25),
    vehicleId: text(10),
    plate: text(7),
    route: text(20),
    zone: text(20),
    deliveryNote: text(20),
    via: mostly(fc.constantFrom('01', '02', '03'), 4),
    originCountry: mostly(letters(60), 65),
    destinationAddress: text(100),
    destinationCountry: mostly(letters(60), 65),
    carrierRnc: text(20),
    carrierName: text(150),
    voyageNumber: text(20),
  };
  const allowed = SCHEMA.transport[type];
  if (!allowed.length) return fc.constant({});
  return fc.record(Object.fromEntries(allowed.map((k) => [k, all[k]!])), { requiredKeys: [] }).filter((t) => Object.keys(t).length > 0);
}

/** Mostly only the fields the type's XSD has; one case in 10 keeps them all (then validation must refuse). */
const only = (entry: Payload, type: EcfType, at: string[], elements: Readonly<Record<string, readonly string[]>>): Payload =>
  Object.fromEntries(Object.entries(entry).filter(([k]) => Math.abs(hash(JSON.stringify(entry))) % 30 === 0 || hasElement(type, [...at, ...elements[k]!])));
const hash = (s: string) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 0);

const subtotal = () =>
  fc.record(
    {
      number: fc.integer({ min: 1, max: 99 }),
      order: fc.integer({ min: 1, max: 99 }),
      lines: fc.integer({ min: 1, max: 99 }),
      description: text(40),
      montoGravadoTotal: decimal(2, 12),
      montoExento: decimal(2, 12),
      amount: decimal(2, 12),
    },
    { requiredKeys: [] },
  );

const page = () =>
  fc.record(
    {
      number: fc.integer({ min: 1, max: 1000 }),
      lineFrom: fc.integer({ min: 1, max: 1000 }),
      lineTo: fc.integer({ min: 1, max: 1000 }),
      montoGravadoTotal: decimal(2, 12),
      montoExento: decimal(2, 12),
      amount: decimal(2, 12),
    },
    { requiredKeys: [] },
  );

/**
 * One step outside the contract (1 case in 8): the validator must then answer
 * errors that name fields. null = none.
 */
function outsideTheContract(type: EcfType): fc.Arbitrary<((p: Payload) => void) | null> {
  const steps: fc.Arbitrary<(p: Payload) => void>[] = [
    fc.constant((p: Payload) => void (p.internalNumber = 'X'.repeat(21))),
    fc.constant((p: Payload) => void ((p.lines as Payload[])[0]!.name = 'Ñ'.repeat(81))),
    fc.constant((p: Payload) => void ((p.lines as Payload[])[0]!.quantity = '12345678901234567')),
    fc.constant((p: Payload) => void ((p.lines as Payload[])[0]!.unitPrice = '-1')),
    fc.constant((p: Payload) => void (p.globalAdjustments = [{ line: 1, percentage: '1000', affectsItbisRate: 1 }])),
    fc.constant((p: Payload) => void (p.sellerCode = 'V'.repeat(61))),
    fc.constant((p: Payload) => void ((p.lines as Payload[])[0]!.itbisRate = 17)),
    fc.constant((p: Payload) => void (p.foreignCurrency = { currency: 'XXX', exchangeRate: '0' })),
    fc.constant((p: Payload) => void (p.buyer = { ...(p.buyer as Payload | undefined), name: 'B'.repeat(151) })),
    fc.constant((p: Payload) => void (p.type = 30)),
    fc.constant((p: Payload) => void (p.buyer = { ...(p.buyer as Payload | undefined), contact: 'C'.repeat(81) })),
    fc.constant((p: Payload) => void ((p.lines as Payload[])[0]!.description = 'D'.repeat(1001))),
    fc.constant((p: Payload) => void ((p.lines as Payload[])[0]!.name = 'Bell \u0007')),
  ];
  void type;
  return fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.oneof(...steps) });
}

/** A payload of any of the ten types. */
export const anyPayload = (options: PayloadOptions = {}): fc.Arbitrary<Generated> => fc.constantFrom(...ECF_TYPES).chain((t) => typedPayload(t, options));

export const payloadOfType = (type: EcfType, options: PayloadOptions = {}): fc.Arbitrary<Generated> => typedPayload(type, options);
