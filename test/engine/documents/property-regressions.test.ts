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

describe('property counterexamples: text and codes the XSD restricts', () => {
  it('control characters (and U+FFFE) are refused in any text; tab, line feed and carriage return are carried', () => {
    expect(paths(invoice({ lines: [{ name: 'Bell \u0007', quantity: 1, unitPrice: '1' }], internalNumber: 'A\uFFFE' }))).toEqual([
      'internalNumber StringPattern',
      'lines[0].name StringPattern',
    ]);
    const { signed, schema } = issueValid(invoice({ lines: [{ name: 'Línea\tuno\r\ndos', quantity: 1, unitPrice: '1' }] }));
    expect(schema.errors).toEqual([]);
    expect(signed.xml).toContain('<NombreItem>Línea\tuno&#xD;\ndos</NombreItem>');
  });

  it('buyer e-mail, municipality and province follow the XSD (pattern, Tabla III)', () => {
    expect(paths(invoice({ buyer: { ...buyer, email: 'ú°', municipality: 'B¿Í', province: '999999', contact: 'C'.repeat(81), address: 'A'.repeat(101) } }))).toEqual([
      'buyer.email StringPattern',
      'buyer.contact StringMaxLength',
      'buyer.address StringMaxLength',
      'buyer.municipality StringPattern',
      'buyer.province Ecf.InvalidValue',
    ]);
  });

  it('shipping and transport: digits-only numbers, letter-only countries, the via code, each length, positive volume', () => {
    const r = paths({
      type: 46, incomeType: '01', payment: { condition: '1' }, buyer, lines: [{ name: 'C', quantity: 1, unitPrice: '1', itbisRate: 0 }],
      shipping: { referenceNumber: 'R-1', shipmentNumber: 'S'.repeat(26), volume: '0', export: { deliveryTerms: 'F0B', customsRegime: 'Régimen 1', totalFob: '0' } },
      transport: { transportDocument: '12a', via: '04', originCountry: '8', destinationCountry: 'EU', carrierName: 'Naviera, S.A.', plate: 'A123456X' },
    });
    expect(r).toEqual(
      expect.arrayContaining([
        'shipping.shipmentNumber StringMaxLength',
        'shipping.referenceNumber StringPattern',
        'shipping.volume Ecf.OutOfRange',
        'shipping.export.deliveryTerms StringPattern',
        'shipping.export.customsRegime StringPattern',
        'shipping.export.totalFob Ecf.OutOfRange',
        'transport.transportDocument StringPattern',
        'transport.via StringPattern',
        'transport.originCountry StringPattern',
        'transport.plate StringMaxLength',
        'transport.destinationCountry Ecf.InvalidFormat',
      ]),
    );
    // Type 47's PaisDestino takes letters without a minimum.
    expect(paths({ type: 47, payment: { condition: '1' }, transport: { destinationCountry: 'EU' }, lines: [{ name: 'S', kind: 'service', quantity: 1, unitPrice: '1', retention: { isrWithheld: '0' } }] })).toEqual([]);
  });

  it('mining affiliationType and settlement are 1 or 2', () => {
    expect(
      paths({
        type: 32, incomeType: '01', payment: { condition: '1' },
        lines: [{ name: 'Oro', quantity: 1, unitPrice: '1', details: { mining: { affiliationType: 3, settlement: 0 } } }],
      }),
    ).toEqual(['lines[0].details.mining.affiliationType Ecf.InvalidValue', 'lines[0].details.mining.settlement Ecf.InvalidValue']);
  });
});

describe('other-currency amounts stay within 16 integer digits', () => {
  it('a unit price that converts past 16 integer digits at a tiny exchange rate is refused', () => {
    expect(paths(invoice({ lines: [{ name: 'A', quantity: '0.01', unitPrice: '9000000000000' }], foreignCurrency: { currency: 'USD', exchangeRate: '0.0001' } }))).toEqual([
      'foreignCurrency.exchangeRate Ecf.OutOfRange',
    ]);
    expect(paths(invoice({ lines: [{ name: 'A', quantity: 1, unitPrice: '1', foreignCurrency: { unitPrice: '12345678901234567' } }], foreignCurrency: { currency: 'USD', exchangeRate: '1' } }))).toEqual([
      'lines[0].foreignCurrency.unitPrice Ecf.OutOfRange',
    ]);
  });
});
