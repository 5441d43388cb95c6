import { describe, expect, it } from 'vitest';
import { issueValid, text, validate } from './issue-helper.js';

/**
 * Counterexamples the document property found (properties.test.ts),
 * minimised and kept: each was accepted by validation and then failed the
 * official schema (the pre-sign gate threw, or the XML was invalid).
 */

const buyer = { rnc: '131880681', name: 'Constructora Ejemplo SRL' };
const invoice = (extra: Record<string, unknown>) => ({ type: 31, incomeType: '01', payment: { condition: '1' }, buyer, lines: [{ name: 'A', quantity: 1, unitPrice: '100' }], ...extra });
const paths = (payload: unknown) => validate(payload).errors.map((e) => `${e.path} ${e.code}`);

describe('property counterexamples, kept as regression cases', () => {
  it('a subtotal or page field the type’s schema lacks is refused (type 47 has no gravado subtotal, 46 no exempt one)', () => {
    expect(paths({ type: 47, payment: { condition: '1' }, lines: [{ name: 'S', kind: 'service', quantity: 1, unitPrice: '1', retention: { isrWithheld: '0' } }], subtotals: [{ montoGravadoTotal: '1' }] })).toEqual([
      'subtotals[0].montoGravadoTotal Ecf.FieldNotAllowed',
    ]);
    expect(
      paths({
        type: 46, incomeType: '01', payment: { condition: '1' }, buyer, lines: [{ name: 'C', quantity: 1, unitPrice: '1', itbisRate: 0 }],
        pagination: [{ number: 1, montoExento: '1' }],
      }),
    ).toEqual(['pagination[0].montoExento Ecf.FieldNotAllowed']);
  });

  it('subtotal and page numbers and amounts follow their XSD types', () => {
    expect(paths(invoice({ subtotals: [{ number: 100, amount: '-1' }], pagination: [{ number: 0, montoImpuestoAdicional: '0' }] }))).toEqual([
      'subtotals[0].number Ecf.OutOfRange',
      'subtotals[0].amount Ecf.OutOfRange',
      'pagination[0].number Ecf.OutOfRange',
      'pagination[0].montoImpuestoAdicional Ecf.OutOfRange',
    ]);
  });

  it('a quantity or price of more than 16 integer digits is refused', () => {
    expect(paths(invoice({ lines: [{ name: 'A', quantity: '12345678901234567', unitPrice: '12345678901234567' }] }))).toEqual(
      expect.arrayContaining(['lines[0].quantity Ecf.OutOfRange', 'lines[0].unitPrice Ecf.OutOfRange']),
    );
  });

  it('totals that would pass 16 integer digits are refused, naming the lines', () => {
    const big = { name: 'A', quantity: '9999', unitPrice: '9999999999999' };
    const r = validate(invoice({ lines: [big, big] }));
    expect(r.errors.map((e) => `${e.path} ${e.code}`)).toContain('lines Ecf.OutOfRange');
    expect(r.errors.find((e) => e.path === 'lines')!.message).toContain('16 integer digits');
  });

  it('an exchange rate so small that the other-currency totals pass 16 integer digits is refused', () => {
    const r = validate(invoice({ lines: [{ name: 'A', quantity: 1, unitPrice: '99999999999999' }], foreignCurrency: { currency: 'USD', exchangeRate: '0.0001' } }));
    expect(r.errors.map((e) => `${e.path} ${e.code}`)).toContain('foreignCurrency.exchangeRate Ecf.OutOfRange');
  });

  it('global discounts larger than their group are refused instead of a negative MontoGravadoI2', () => {
    expect(paths(invoice({ lines: [{ name: 'A', quantity: 1, unitPrice: '100', itbisRate: 16 }], globalAdjustments: [{ line: 1, amount: '100.01', affectsItbisRate: 2 }] }))).toEqual([
      'globalAdjustments[0].amount Ecf.OutOfRange',
    ]);
  });

  it('more than 20 additional-tax codes in one document are refused (ImpuestosAdicionales holds 20)', () => {
    const codes = ['001', '002', '003', '004', '005', '023', '024', '025', '026', '027', '028', '029', '030', '031', '032', '033', '034', '035', '036', '037', '038'];
    const lines = codes.map((code) => ({
      name: `L${code}`, quantity: 1, unitPrice: '100',
      additionalTaxes: [{ code, rate: '10', ...(Number(code) <= 5 ? { otros: '1' } : { iscAdvalorem: '1' }) }],
      ...(Number(code) > 5 && { details: { referenceUnitPrice: '100' } }),
    }));
    expect(paths(invoice({ lines }))).toEqual(['lines Ecf.TooManyItems']);
  });

  it('additional taxes that convert to 0.00 in the other currency leave MontoImpuestoAdicionalOtraMoneda out (the XSD wants it above zero)', () => {
    const { signed, schema } = issueValid(
      invoice({ lines: [{ name: 'A', quantity: 1, unitPrice: '100', additionalTaxes: [{ code: '001', rate: '10', otros: '0.01' }] }], foreignCurrency: { currency: 'USD', exchangeRate: '60' } }),
    );
    expect(schema.errors).toEqual([]);
    expect(text(signed.xml, 'MontoImpuestoAdicional')).toBe('0.01');
    expect(text(signed.xml, 'MontoImpuestoAdicionalOtraMoneda')).toBeUndefined();
  });
});
