import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec, ZERO, dec, money, round2, sum } from '../../../src/engine/money.js';
import { computeForeignTotals, computeTotals, type LineInput, type TotalsInput } from '../../../src/engine/documents/totals.js';

const line = (over: Partial<LineInput> & { quantity?: Dec; unitPrice?: Dec } = {}): LineInput => ({
  treatment: 'taxed',
  rate: 18,
  quantity: dec(1),
  unitPrice: dec(100),
  discount: ZERO,
  surcharge: ZERO,
  priceIncludesTax: false,
  additionalTaxes: [],
  itbisWithheld: null,
  isrWithheld: null,
  ...over,
});
const doc = (lines: LineInput[], over: Partial<TotalsInput> = {}): TotalsInput => ({
  pricesIncludeTax: false,
  lines,
  adjustments: [],
  nonInvoiceableAmount: ZERO,
  ...over,
});
const shown = (t: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(t).filter(([, v]) => v instanceof Dec || typeof v === 'number').map(([k, v]) => [k, v instanceof Dec ? money(v) : v]));

describe('totals', () => {
  it('rounds half-up once on quantity × price (3 × 0.335 = 1.005 → 1.01; 10.125 → 10.13)', () => {
    const a = computeTotals(doc([line({ quantity: dec(3), unitPrice: dec('0.335'), treatment: 'exempt' })]));
    expect(money(a.lines[0]!.amount)).toBe('1.01');
    const b = computeTotals(doc([line({ quantity: dec(1), unitPrice: dec('10.125'), treatment: 'exempt' })]));
    expect(money(b.totals.montoTotal)).toBe('10.13');
  });

  it('computes ITBIS 18 % and 16 % per group, exempt without ITBIS, and 0 % lines with ITBIS3 = 0', () => {
    const t = computeTotals(
      doc([
        line({ quantity: dec(2), unitPrice: dec('150.00') }),
        line({ rate: 16, unitPrice: dec('99.99') }),
        line({ rate: 0, unitPrice: dec('50') }),
        line({ treatment: 'exempt', unitPrice: dec('25.50') }),
      ]),
    ).totals;
    expect(shown(t as unknown as Record<string, unknown>)).toEqual({
      montoGravadoTotal: '449.99',
      montoGravadoI1: '300.00',
      montoGravadoI2: '99.99',
      montoGravadoI3: '50.00',
      montoExento: '25.50',
      itbis1: 18,
      itbis2: 16,
      itbis3: 0,
      totalItbis: '70.00',
      totalItbis1: '54.00',
      totalItbis2: '16.00',
      totalItbis3: '0.00',
      montoTotal: '545.49',
      valorPagar: '545.49',
    });
  });

  it('divides tax-inclusive amounts once per rate group, then subtracts global discounts as net amounts', () => {
    const t = computeTotals(
      doc(
        [line({ unitPrice: dec('100.00'), priceIncludesTax: true }), line({ unitPrice: dec('100.00'), priceIncludesTax: true }), line({ unitPrice: dec('100.00'), priceIncludesTax: true })],
        { pricesIncludeTax: true, adjustments: [{ kind: 'discount', indicator: 1, amount: dec('10.00'), percentage: null, norm1007: false }] },
      ),
    ).totals;
    // 300 / 1.18 = 254.237 → 254.24 (not 3 × 84.75 = 254.25); minus the net discount 10.00
    expect(money(t.montoGravadoI1!)).toBe('244.24');
    expect(money(t.totalItbis1!)).toBe('43.96');
    expect(money(t.montoTotal)).toBe('288.20');
  });

  it('puts ISC específico and ad valorem (006–039) into the ITBIS base but not tips and telecom taxes (001–005)', () => {
    const t = computeTotals(
      doc([
        line({
          unitPrice: dec('1000.00'),
          additionalTaxes: [
            { code: '006', rate: dec('632.58'), especifico: dec('50.00'), advalorem: ZERO, otros: ZERO },
            { code: '023', rate: dec('10'), especifico: ZERO, advalorem: dec('100.00'), otros: ZERO },
          ],
        }),
        line({ unitPrice: dec('500.00'), additionalTaxes: [{ code: '001', rate: dec('10'), especifico: ZERO, advalorem: ZERO, otros: dec('50.00') }] }),
      ]),
    ).totals;
    expect(money(t.montoGravadoI1!)).toBe('1500.00');
    expect(money(t.totalItbis1!)).toBe('297.00'); // (1500 + 150) × 18 %
    expect(money(t.montoImpuestoAdicional!)).toBe('200.00');
    expect(t.impuestosAdicionales.map((i) => [i.code, money(i.especifico), money(i.advalorem), money(i.otros)])).toEqual([
      ['001', '0.00', '0.00', '50.00'],
      ['006', '50.00', '0.00', '0.00'],
      ['023', '0.00', '100.00', '0.00'],
    ]);
    expect(money(t.montoTotal)).toBe('1997.00');
  });

  it('keeps non-invoiceable lines out of MontoTotal, in MontoNoFacturable and MontoPeriodo', () => {
    const t = computeTotals(doc([line({ unitPrice: dec('100') }), line({ treatment: 'non_invoiceable', unitPrice: dec('20') })], { nonInvoiceableAmount: dec('-5') })).totals;
    expect(money(t.montoTotal)).toBe('118.00');
    expect(money(t.montoNoFacturable!)).toBe('15.00');
    expect(money(t.montoPeriodo!)).toBe('133.00');
    const textOnly = computeTotals(doc([line({ treatment: 'non_invoiceable', unitPrice: ZERO })])).totals;
    expect(money(textOnly.montoTotal)).toBe('0.00');
    expect(textOnly.montoGravadoTotal).toBeUndefined();
    expect(money(textOnly.montoNoFacturable!)).toBe('0.00');
  });

  it('sums withholdings without reducing ValorPagar; a 10-07 discount reduces only ValorPagar', () => {
    const t = computeTotals(
      doc([line({ unitPrice: dec('1000'), itbisWithheld: dec('54'), isrWithheld: dec('100') }), line({ unitPrice: dec('10'), itbisWithheld: dec('1.80'), isrWithheld: null })], {
        adjustments: [{ kind: 'discount', indicator: 1, amount: dec('5.00'), percentage: null, norm1007: true }],
      }),
    ).totals;
    expect(money(t.montoTotal)).toBe('1191.80');
    expect(money(t.valorPagar)).toBe('1186.80');
    expect(money(t.totalItbisRetenido!)).toBe('55.80');
    expect(money(t.totalIsrRetencion!)).toBe('100.00');
  });

  it('restates a line priced with tax in a document priced without it', () => {
    const r = computeTotals(doc([line({ unitPrice: dec('118.00'), priceIncludesTax: true })]));
    expect(r.lines[0]!.unitPrice.toFixed(4)).toBe('100.0000');
    expect(money(r.totals.montoTotal)).toBe('118.00');
  });

  it('converts totals to the other currency by dividing and rounding, keeping what the client supplied', () => {
    const t = computeTotals(doc([line({ unitPrice: dec('5900') })])).totals;
    const f = computeForeignTotals(t, dec('59.1234'), { montoTotal: dec('117.77') });
    expect(Object.fromEntries(Object.entries(f).map(([k, v]) => [k, money(v!)]))).toEqual({
      montoGravadoTotal: '99.79',
      montoGravadoI1: '99.79',
      totalItbis: '17.96',
      totalItbis1: '17.96',
      montoTotal: '117.77',
    });
  });
});

describe('totals invariants (property tests)', () => {
  const amount = fc.integer({ min: 0, max: 10_000_000 }).map((c) => new Dec(c).div(100));
  const lineArb = fc.record({
    treatment: fc.constantFrom('taxed', 'taxed', 'exempt', 'non_invoiceable') as fc.Arbitrary<LineInput['treatment']>,
    rate: fc.constantFrom(18, 16, 0) as fc.Arbitrary<LineInput['rate']>,
    quantity: fc.integer({ min: 1, max: 100_000 }).map((c) => new Dec(c).div(100)),
    unitPrice: fc.integer({ min: 0, max: 100_000_000 }).map((c) => new Dec(c).div(10_000)),
    discount: amount.map((a) => round2(a.div(1000))),
  });
  const input = fc.record({ pricesIncludeTax: fc.boolean(), lines: fc.array(lineArb, { minLength: 1, maxLength: 30 }) }).map(
    ({ pricesIncludeTax, lines }): TotalsInput =>
      doc(
        lines.map((l) => line({ ...l, priceIncludesTax: pricesIncludeTax })),
        { pricesIncludeTax },
      ),
  );

  it('MontoTotal is the sum of its parts, and MontoPeriodo adds the non-invoiceable lines', () => {
    fc.assert(
      fc.property(input, (i) => {
        const { totals: t, lines } = computeTotals(i);
        const parts = [t.montoGravadoTotal, t.montoExento, t.totalItbis, t.montoImpuestoAdicional].filter((x): x is Dec => !!x);
        expect(t.montoTotal.equals(sum(parts))).toBe(true);
        const nonInvoiceable = sum(lines.filter((l) => l.indicator === 0).map((l) => l.amount));
        if (t.montoNoFacturable) expect(t.montoPeriodo!.equals(t.montoTotal.plus(nonInvoiceable))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('exempt and non-invoiceable lines carry no ITBIS, and every amount has at most two decimals', () => {
    fc.assert(
      fc.property(input, (i) => {
        const exemptOnly = { ...i, lines: i.lines.map((l) => ({ ...l, treatment: 'exempt' as const })) };
        const t = computeTotals(exemptOnly).totals;
        expect(t.totalItbis).toBeUndefined();
        expect(t.montoTotal.equals(t.montoExento!)).toBe(true);
        for (const v of Object.values(computeTotals(i).totals)) if (v instanceof Dec) expect(v.decimalPlaces()).toBeLessThanOrEqual(2);
      }),
      { numRuns: 300 },
    );
  });

  it('never drifts from the exact total by more than the authority’s tolerance (one unit per line)', () => {
    fc.assert(
      fc.property(input, (i) => {
        const { totals: t } = computeTotals(i);
        // the exact value: unrounded line amounts, unrounded division, unrounded ITBIS
        let exact = ZERO;
        for (const l of i.lines) {
          const a = l.quantity.times(l.unitPrice).minus(l.discount);
          if (l.treatment === 'non_invoiceable') continue;
          if (l.treatment === 'exempt') exact = exact.plus(a);
          else exact = exact.plus(i.pricesIncludeTax ? a : a.times(new Dec(1).plus(new Dec(l.rate).div(100))));
        }
        expect(t.montoTotal.minus(exact).abs().lte(i.lines.length)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
