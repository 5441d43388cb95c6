import { describe, expect, it } from 'vitest';
import { issueValid, text, texts, validate } from './issue-helper.js';

/**
 * Norma 10-07 (telecommunications), FMT fields 93 d, 109 d and 115 c: prices
 * include ITBIS, CDT (002) and ISC on telecom (004); the 18 % base divides by
 * (1 + 0.18 + the rates of 002 and 004 the line carries); 002 and 004 are that
 * base × their rate; the 10-07 discount comes off ValorPagar, not the gravado
 * amount. Every expected figure below is worked by hand from those formulas.
 */
const CDT = { code: '002', rate: '2' };
const TELECOM_ISC = { code: '004', rate: '10' };
const buyer = { rnc: '131880681', name: 'Cliente Telecom SRL' };
const telecomInvoice = (lines: unknown[], adjustments: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 31,
  incomeType: '01',
  payment: { condition: '1' },
  buyer,
  pricesIncludeTax: true,
  lines,
  globalAdjustments: adjustments,
  ...extra,
});
const plan = { name: 'Plan móvil pospago', kind: 'service', quantity: 1, unitPrice: '1300.00', additionalTaxes: [CDT, TELECOM_ISC] };

const header = (xml: string) => xml.match(/<Totales>.*<\/Totales>/)![0];
const taxAmount = (xml: string, code: string) =>
  header(xml).match(new RegExp(`<TipoImpuesto>${code}</TipoImpuesto><TasaImpuestoAdicional>([^<]*)</TasaImpuestoAdicional><OtrosImpuestosAdicionales>([^<]*)<`))?.slice(1);

describe('Norma 10-07 totals', () => {
  it('one telecom line: RD$1,300.00 including ITBIS, CDT and ISC, with a RD$100.00 10-07 discount', () => {
    const { signed, schema } = issueValid(telecomInvoice([plan], [{ line: 1, amount: '100.00', norm1007: true, description: 'Descuento pensionado 10-07' }]));
    expect(schema.errors).toEqual([]);
    const t = header(signed.xml);
    // 93 d: 1,300.00 ÷ (1 + 0.18 + 0.02 + 0.10) = 1,300.00 ÷ 1.30 = 1,000.00; the 10-07 discount is not subtracted.
    expect(text(t, 'MontoGravadoI1')).toBe('1000.00');
    expect(text(t, 'MontoGravadoTotal')).toBe('1000.00');
    // 101: 1,000.00 × 0.18 = 180.00
    expect(text(t, 'TotalITBIS1')).toBe('180.00');
    // 109 d: 002 = 1,000.00 × 0.02 = 20.00; 004 = 1,000.00 × 0.10 = 100.00; together 120.00
    expect(taxAmount(signed.xml, '002')).toEqual(['2.00', '20.00']);
    expect(taxAmount(signed.xml, '004')).toEqual(['10.00', '100.00']);
    expect(text(t, 'MontoImpuestoAdicional')).toBe('120.00');
    // 110: 1,000.00 + 180.00 + 120.00 = 1,300.00, the price the customer saw
    expect(text(t, 'MontoTotal')).toBe('1300.00');
    // 115 c: 1,300.00 − 100.00 = 1,200.00
    expect(text(t, 'ValorPagar')).toBe('1200.00');
    expect(text(signed.xml, 'IndicadorNorma1007')).toBe('1');
    expect(text(signed.xml, 'IndicadorMontoGravado')).toBe('1');
  });

  it('lines with both taxes, with CDT only and with none, an exempt line, a 5 % 10-07 discount and an ordinary discount', () => {
    const { signed, schema } = issueValid(
      telecomInvoice(
        [
          { name: 'Internet residencial', kind: 'service', quantity: 3, unitPrice: '1499.99', additionalTaxes: [CDT, TELECOM_ISC] },
          { name: 'Larga distancia', kind: 'service', quantity: 1, unitPrice: '250.00', additionalTaxes: [CDT] },
          { name: 'Router', quantity: 1, unitPrice: '118.00' },
          { name: 'Guía telefónica', quantity: 2, unitPrice: '25.50', taxTreatment: 'exempt' },
        ],
        [
          { line: 1, percentage: '5', norm1007: true },
          { line: 2, amount: '10.00', affectsItbisRate: 4 },
        ],
      ),
    );
    expect(schema.errors).toEqual([]);
    const t = header(signed.xml);
    // MontoItem: 3 × 1,499.99 = 4,499.97; 250.00; 118.00; 2 × 25.50 = 51.00
    expect(texts(signed.xml, 'MontoItem')).toEqual(['4499.97', '250.00', '118.00', '51.00']);
    // 93 d, per set of taxes the lines carry:
    //   002 + 004: 4,499.97 ÷ 1.30 = 3,461.5153… → 3,461.52
    //   002 only:    250.00 ÷ 1.20 =   208.3333… →   208.33
    //   neither:     118.00 ÷ 1.18 =   100.00
    //   MontoGravadoI1 = 3,461.52 + 208.33 + 100.00 = 3,769.85 (10-07 discount not subtracted)
    expect(text(t, 'MontoGravadoI1')).toBe('3769.85');
    // 101: 3,769.85 × 0.18 = 678.573 → 678.57
    expect(text(t, 'TotalITBIS1')).toBe('678.57');
    // 109 d: 002 = (3,461.52 + 208.33) × 0.02 = 73.397 → 73.40; 004 = 3,461.52 × 0.10 = 346.152 → 346.15
    expect(taxAmount(signed.xml, '002')).toEqual(['2.00', '73.40']);
    expect(taxAmount(signed.xml, '004')).toEqual(['10.00', '346.15']);
    expect(text(t, 'MontoImpuestoAdicional')).toBe('419.55');
    // 96: 51.00 − 10.00 = 41.00 (the ordinary discount does reduce its group)
    expect(text(t, 'MontoExento')).toBe('41.00');
    // 110: 3,769.85 + 41.00 + 678.57 + 419.55 = 4,908.97 (= 4,918.97 of prices − 10.00)
    expect(text(t, 'MontoTotal')).toBe('4908.97');
    // The 10-07 discount: 5 % of the 18 % base 3,769.85 = 188.4925 → 188.49
    const adjustments = texts(signed.xml, 'MontoDescuentooRecargo');
    expect(adjustments).toEqual(['188.49', '10.00']);
    // 115 c: 4,908.97 − 188.49 = 4,720.48
    expect(text(t, 'ValorPagar')).toBe('4720.48');
  });

  it('refuses what the 10-07 formulas cannot express, naming each field', () => {
    const exempt = { name: 'Guía', quantity: 1, unitPrice: '10.00', taxTreatment: 'exempt', additionalTaxes: [CDT] };
    const r = validate(
      telecomInvoice(
        [
          { ...plan, additionalTaxes: [CDT, { ...TELECOM_ISC, otros: '101.01' }] },
          { ...plan, additionalTaxes: [{ ...CDT, rate: '3' }] },
          { ...plan, priceIncludesTax: false },
          exempt,
        ],
        [
          { line: 1, amount: '10.00', norm1007: true, kind: 'surcharge' },
          { line: 2, amount: '10.00', norm1007: true, affectsItbisRate: 4 },
        ],
      ),
    );
    expect(r.document).toBeNull();
    const paths = r.errors.map((e) => `${e.path} ${e.code}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'globalAdjustments[0].kind Ecf.InvalidValue',
        'globalAdjustments[1].affectsItbisRate Ecf.InvalidValue',
        'lines[0].additionalTaxes[1].otros Ecf.InvalidValue',
        'lines[1].additionalTaxes[0].rate Ecf.InvalidValue',
        'lines[2].priceIncludesTax Ecf.InvalidValue',
        'lines[3].additionalTaxes[0].code Ecf.InvalidValue',
      ]),
    );
  });

  it('takes the 002 and 004 amounts a client sends when they are the ones computed here, within the 1.00 a line allows', () => {
    const lines = [
      // 4,499.97 ÷ 1.30 = 3,461.5153…: 002 = 69.2303… → 69.23, 004 = 346.1515… → 346.15
      { name: 'Internet residencial', kind: 'service', quantity: 3, unitPrice: '1499.99', additionalTaxes: [{ ...CDT, otros: '69.23' }, { ...TELECOM_ISC, otros: '346.15' }] },
      // 250.00 ÷ 1.20 = 208.333…: 002 = 4.1666… → 4.17, sent 0.99 off, inside the tolerance
      { name: 'Larga distancia', kind: 'service', quantity: 1, unitPrice: '250.00', additionalTaxes: [{ ...CDT, otros: '5.16' }] },
      // No amount: computed here, as before.
      { ...plan, additionalTaxes: [CDT, TELECOM_ISC] },
    ];
    const { signed, schema } = issueValid(telecomInvoice(lines, [{ line: 1, amount: '100.00', norm1007: true }]));
    expect(schema.errors).toEqual([]);
    // The XML carries the amounts computed per set of taxes (the header sums them): declared amounts are compared, never substituted.
    // 002 = (3,461.52 + 1,000.00 + 208.33) × 0.02 = 93.397 → 93.40; 004 = (3,461.52 + 1,000.00) × 0.10 = 446.152 → 446.15
    expect(taxAmount(signed.xml, '002')).toEqual(['2.00', '93.40']);
    expect(taxAmount(signed.xml, '004')).toEqual(['10.00', '446.15']);
  });

  it('refuses a 002 or 004 amount that differs from the computed one by more than 1.00, naming the field and the expected value', () => {
    const r = validate(
      telecomInvoice(
        [
          { ...plan, additionalTaxes: [{ ...CDT, otros: '21.01' }, { ...TELECOM_ISC, otros: '120.00' }] },
          { ...plan, additionalTaxes: [{ ...CDT, otros: '18.99' }, { ...TELECOM_ISC, otros: '99.00' }] },
        ],
        [{ line: 1, amount: '100.00', norm1007: true }],
      ),
    );
    expect(r.document).toBeNull();
    expect(r.errors.map((e) => `${e.path} ${e.code}`)).toEqual([
      'lines[0].additionalTaxes[0].otros Ecf.InvalidValue',
      'lines[0].additionalTaxes[1].otros Ecf.InvalidValue',
      'lines[1].additionalTaxes[0].otros Ecf.InvalidValue',
    ]);
    // 1,300.00 ÷ 1.30 = 1,000.00: 002 = 20.00, 004 = 100.00 (99.00 is exactly 1.00 off: taken)
    expect(r.errors[0]!.message).toContain('expected 20.00');
    expect(r.errors[1]!.message).toContain('expected 100.00');
    expect(r.errors[2]!.message).toContain('expected 20.00');
  });

  it('needs tax-inclusive prices and at least one telecom line', () => {
    const r = validate(telecomInvoice([{ name: 'Router', quantity: 1, unitPrice: '118.00' }], [{ line: 1, amount: '1.00', norm1007: true }], { pricesIncludeTax: false }));
    expect(r.errors.map((e) => `${e.path} ${e.code}`)).toEqual(
      expect.arrayContaining(['pricesIncludeTax Ecf.InvalidValue', 'globalAdjustments[0].norm1007 Ecf.InvalidValue']),
    );
  });

  it('refuses a 10-07 discount larger than MontoTotal (ValorPagar would be negative)', () => {
    const r = validate(telecomInvoice([plan], [{ line: 1, amount: '1300.01', norm1007: true }]));
    expect(r.errors).toEqual([expect.objectContaining({ path: 'globalAdjustments[0].amount', code: 'Ecf.OutOfRange' })]);
    expect(r.errors[0]!.message).toContain('-0.01');
  });

  it('leaves documents without a 10-07 discount as they were: 002 and 004 amounts come from the client', () => {
    const { signed, schema } = issueValid(
      telecomInvoice([{ ...plan, unitPrice: '1180.00', additionalTaxes: [{ ...CDT, otros: '20.00' }, { ...TELECOM_ISC, otros: '100.00' }] }], []),
    );
    expect(schema.errors).toEqual([]);
    // 1,180.00 ÷ 1.18 = 1,000.00; ITBIS 180.00; client's 002 and 004: 120.00; total 1,300.00 and nothing off ValorPagar.
    expect(text(header(signed.xml), 'MontoGravadoI1')).toBe('1000.00');
    expect(text(header(signed.xml), 'MontoTotal')).toBe('1300.00');
    expect(text(header(signed.xml), 'ValorPagar')).toBe('1300.00');
  });
});
