import { describe, expect, it } from 'vitest';
import { issueValid, text, validate } from './issue-helper.js';

/**
 * FMT section D: ValorDescuentooRecargo is the percentage (XSD
 * Decimal5D1or2ValidationTypeMayorCero, at most 999.99) and only exists for
 * TipoValor "%"; a "$" adjustment carries its amount in MontoDescuentooRecargo only.
 */
const invoice = (adjustments: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 31,
  incomeType: '01',
  payment: { condition: '1' },
  buyer: { rnc: '131880681', name: 'Constructora Ejemplo SRL' },
  lines: [{ name: 'Cemento gris', quantity: 100, unitPrice: '350.00' }],
  globalAdjustments: adjustments,
  ...extra,
});

const adjustment = (xml: string) => xml.match(/<DescuentoORecargo>.*<\/DescuentoORecargo>/)![0];

describe('global discounts and surcharges in the XML', () => {
  it('a RD$1,000.00 discount ($) is schema-valid: amount in MontoDescuentooRecargo, no ValorDescuentooRecargo', () => {
    const { signed, schema } = issueValid(invoice([{ line: 1, amount: '1000.00', description: 'Descuento por volumen' }]));
    expect(schema.errors).toEqual([]);
    const a = adjustment(signed.xml);
    expect(text(a, 'TipoValor')).toBe('$');
    expect(text(a, 'ValorDescuentooRecargo')).toBeUndefined();
    expect(text(a, 'MontoDescuentooRecargo')).toBe('1000.00');
    // 35,000.00 − 1,000.00 = 34,000.00; ITBIS 18 % = 6,120.00.
    expect(text(signed.xml, 'MontoGravadoI1')).toBe('34000.00');
    expect(text(signed.xml, 'TotalITBIS1')).toBe('6120.00');
  });

  it('a large $ surcharge (RD$1,234,567.89) is schema-valid too', () => {
    const { signed, schema } = issueValid(invoice([{ line: 1, kind: 'surcharge', amount: '1234567.89' }]));
    expect(schema.errors).toEqual([]);
    expect(text(adjustment(signed.xml), 'MontoDescuentooRecargo')).toBe('1234567.89');
  });

  it('a % discount writes the percentage in ValorDescuentooRecargo and the computed amount in MontoDescuentooRecargo', () => {
    const { signed, schema } = issueValid(invoice([{ line: 1, percentage: '12.5' }]));
    expect(schema.errors).toEqual([]);
    const a = adjustment(signed.xml);
    expect(text(a, 'TipoValor')).toBe('%');
    expect(text(a, 'ValorDescuentooRecargo')).toBe('12.50');
    // 12.5 % of 35,000.00 = 4,375.00.
    expect(text(a, 'MontoDescuentooRecargo')).toBe('4375.00');
  });

  it('with another currency, each adjustment also carries MontoDescuentooRecargoOtraMoneda (amount ÷ rate)', () => {
    const { signed, schema } = issueValid(invoice([{ line: 1, amount: '5912.34' }], { foreignCurrency: { currency: 'USD', exchangeRate: '59.1234' } }));
    expect(schema.errors).toEqual([]);
    // 5,912.34 ÷ 59.1234 = 100.0000... → 100.00
    expect(text(adjustment(signed.xml), 'MontoDescuentooRecargoOtraMoneda')).toBe('100.00');
  });

  it('bounds the percentage: a discount above 100 % or a surcharge above 999.99 % is a 400 naming the field', () => {
    const r = validate(invoice([{ line: 1, percentage: 1000, kind: 'surcharge' }, { line: 2, percentage: '100.01' }]));
    expect(r.document).toBeNull();
    expect(r.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'globalAdjustments[0].percentage', code: 'Ecf.OutOfRange' }),
        expect.objectContaining({ path: 'globalAdjustments[1].percentage', code: 'Ecf.OutOfRange' }),
      ]),
    );
    const surcharge = issueValid(invoice([{ line: 1, kind: 'surcharge', percentage: '999.99' }]));
    expect(surcharge.schema.errors).toEqual([]);
    expect(text(adjustment(surcharge.signed.xml), 'ValorDescuentooRecargo')).toBe('999.99');
  });
});
