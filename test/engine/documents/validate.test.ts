import { describe, expect, it } from 'vitest';
import { Dec } from '../../../src/engine/money.js';
import type { EcfType } from '../../../src/engine/documents/payload.js';
import type { Notice } from '../../../src/engine/documents/model.js';
import { prepareDocument, type ValidationContext } from '../../../src/engine/documents/prepare.js';

const TODAY = '2025-06-10';
const MANAGED: ValidationContext = { sequenceMode: 'managed', today: TODAY };
const EXTERNAL: ValidationContext = { sequenceMode: 'external', today: TODAY };

type Payload = Record<string, any>;

const line = (extra: Payload = {}): Payload => ({ name: 'Servicio de consultoría', quantity: 1, unitPrice: '1000.00', ...extra });

/** The smallest payload of each type that the matrix accepts. */
function minimal(type: EcfType): Payload {
  const sale = { incomeType: '01', payment: { condition: '1' } };
  switch (type) {
    case 31:
      return { type, ...sale, buyer: { rnc: '131000001', name: 'Comprador SRL' }, lines: [line()] };
    case 32:
      return { type, ...sale, lines: [line()] };
    case 33:
    case 34:
      return {
        type,
        ...sale,
        reference: { modifiedNcf: 'E310000000001', modifiedNcfDate: '2025-06-01', modificationCode: '3' },
        lines: [line()],
      };
    case 41:
      return { type, payment: { condition: '1' }, buyer: { rnc: '40200000001', name: 'Proveedor informal' }, lines: [line({ retention: { itbisWithheld: 180, isrWithheld: 100 } })] };
    case 43:
      return { type, lines: [line()] };
    case 44:
      return { type, ...sale, buyer: { name: 'Embajada' }, lines: [line()] };
    case 45:
      return { type, ...sale, buyer: { rnc: '401000001', name: 'Ministerio' }, lines: [line()] };
    case 46:
      return { type, ...sale, buyer: { name: 'Importadora del Caribe' }, lines: [line()] };
    case 47:
      return { type, lines: [line({ retention: { isrWithheld: 270 } })] };
  }
}

const TYPES: EcfType[] = [31, 32, 33, 34, 41, 43, 44, 45, 46, 47];

function run(payload: unknown, context: ValidationContext = MANAGED) {
  return prepareDocument(payload, context);
}

/** Asserts that `errors` holds a notice with this path and code, and returns it. */
function expectNotice(errors: readonly Notice[], path: string, code: string): Notice {
  const found = errors.find((e) => e.path === path && e.code === code);
  expect(found, `expected ${code} at ${path}; got ${JSON.stringify(errors)}`).toBeDefined();
  return found!;
}

function expectOnly(payload: unknown, path: string, code: string, context: ValidationContext = MANAGED): Notice {
  const r = run(payload, context);
  expect(r.document).toBeNull();
  const notice = expectNotice(r.errors, path, code);
  expect(r.errors, JSON.stringify(r.errors)).toHaveLength(1);
  return notice;
}

function expectValid(payload: unknown, context: ValidationContext = MANAGED) {
  const r = run(payload, context);
  expect(r.errors, JSON.stringify(r.errors)).toEqual([]);
  expect(r.document).not.toBeNull();
  return r;
}

const externalExtras = (type: EcfType): Payload => ({
  encf: `E${type}0000000001`,
  ...(type === 32 || type === 34 ? {} : { sequenceExpiresOn: '2026-12-31' }),
});

describe('prepareDocument: valid minimal payloads', () => {
  it.each(TYPES)('type %i passes in managed mode', (type) => {
    const r = expectValid(minimal(type));
    expect(r.warnings).toEqual([]);
    expect(r.document!.type).toBe(type);
  });

  it.each(TYPES)('type %i passes in external mode with its encf', (type) => {
    const r = expectValid({ ...minimal(type), ...externalExtras(type) }, EXTERNAL);
    expect(r.document!.encf).toBe(`E${type}0000000001`);
  });

  it('accepts the type as a string', () => {
    expect(expectValid({ ...minimal(31), type: '31' }).document!.type).toBe(31);
  });
});

describe('sequence mode: encf and sequenceExpiresOn', () => {
  it('managed mode rejects encf and sequenceExpiresOn', () => {
    const r = run({ ...minimal(31), encf: 'E310000000001', sequenceExpiresOn: '2026-12-31' });
    expectNotice(r.errors, 'encf', 'Ecf.FieldNotAllowed');
    expectNotice(r.errors, 'sequenceExpiresOn', 'Ecf.FieldNotAllowed');
    expect(r.errors).toHaveLength(2);
  });

  it('external mode requires encf', () => {
    expectOnly({ ...minimal(31), sequenceExpiresOn: '2026-12-31' }, 'encf', 'Ecf.FieldRequired', EXTERNAL);
  });

  it('external mode requires the encf type digits to match the type', () => {
    const n = expectOnly({ ...minimal(31), encf: 'E320000000001', sequenceExpiresOn: '2026-12-31' }, 'encf', 'Ecf.EncfTypeMismatch', EXTERNAL);
    expect(n.message).toContain('type 31');
  });

  it.each([31, 33, 41, 43, 44, 45, 46, 47] as EcfType[])('external mode requires sequenceExpiresOn for type %i', (type) => {
    const n = expectOnly({ ...minimal(type), encf: `E${type}0000000001` }, 'sequenceExpiresOn', 'Ecf.FieldRequired', EXTERNAL);
    expect(n.message).toContain(`type ${type}`);
  });

  it.each([32, 34] as EcfType[])('external mode does not allow sequenceExpiresOn for type %i', (type) => {
    expectOnly({ ...minimal(type), encf: `E${type}0000000001`, sequenceExpiresOn: '2026-12-31' }, 'sequenceExpiresOn', 'Ecf.FieldNotAllowed', EXTERNAL);
  });

  it('rejects a sequence that expired before the issue date', () => {
    expectOnly({ ...minimal(31), encf: 'E310000000001', sequenceExpiresOn: '2024-12-31' }, 'sequenceExpiresOn', 'Ecf.SequenceExpired', EXTERNAL);
  });

  it('reports a malformed encf once, as a shape error', () => {
    const r = run({ ...minimal(31), encf: 'E31', sequenceExpiresOn: '2026-12-31' }, EXTERNAL);
    expect(r.errors.map((e) => e.path)).toEqual(['encf']);
    expect(r.errors[0]!.code).toBe('StringPattern');
  });
});

describe('per-type header fields (NOTES §12.5)', () => {
  it.each([41, 43, 47] as EcfType[])('deferredDelivery is not allowed on type %i', (type) => {
    expectOnly({ ...minimal(type), deferredDelivery: true }, 'deferredDelivery', 'Ecf.FieldNotAllowed');
  });

  it('deferredDelivery false counts as absent, and true is fine on 31', () => {
    expectValid({ ...minimal(41), deferredDelivery: false });
    expect(expectValid({ ...minimal(31), deferredDelivery: true }).document!.deferredDelivery).toBe(true);
  });

  it.each([43, 44, 46, 47] as EcfType[])('pricesIncludeTax must not be true on type %i', (type) => {
    expectOnly({ ...minimal(type), pricesIncludeTax: true }, 'pricesIncludeTax', 'Ecf.FieldNotAllowed');
  });

  it.each([31, 32, 33, 34, 44, 45, 46] as EcfType[])('incomeType is required for type %i', (type) => {
    const { incomeType: _, ...rest } = minimal(type);
    const n = expectOnly(rest, 'incomeType', 'Ecf.FieldRequired');
    expect(n.message).toBe(`incomeType is required for type ${type}`);
  });

  it.each([41, 43, 47] as EcfType[])('incomeType is not allowed for type %i', (type) => {
    expectOnly({ ...minimal(type), incomeType: '01' }, 'incomeType', 'Ecf.FieldNotAllowed');
  });

  it.each([31, 32, 33, 34, 41, 44, 45, 46] as EcfType[])('payment.condition is required for type %i', (type) => {
    const { payment: _, ...rest } = minimal(type);
    expectOnly(rest, 'payment.condition', 'Ecf.FieldRequired');
  });

  it('payment.condition is optional on 43 and 47', () => {
    expectValid(minimal(43));
    expectValid({ ...minimal(47), payment: { condition: '1' } });
  });

  it('payment.dueDate is required when the condition is credit', () => {
    expectOnly({ ...minimal(31), payment: { condition: '2' } }, 'payment.dueDate', 'Ecf.FieldRequired');
    expectValid({ ...minimal(31), payment: { condition: '2', dueDate: '2025-07-10' } });
  });

  it('payment.dueDate is not allowed on 43 and optional on 47', () => {
    expectOnly({ ...minimal(43), payment: { dueDate: '2025-07-10' } }, 'payment.dueDate', 'Ecf.FieldNotAllowed');
    expectValid({ ...minimal(47), payment: { condition: '2' } });
  });

  it.each([34, 43] as EcfType[])('payment.methods is not allowed on type %i', (type) => {
    const payment = { ...(minimal(type).payment ?? {}), methods: [{ type: '1', amount: 100 }] };
    expectOnly({ ...minimal(type), payment }, 'payment.methods', 'Ecf.FieldNotAllowed');
  });

  it('each payment method needs both type and amount', () => {
    const r = run({ ...minimal(31), payment: { condition: '1', methods: [{ type: '1' }, { amount: 10 }, { type: null, amount: null }] } });
    expectNotice(r.errors, 'payment.methods[0].amount', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'payment.methods[1].type', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'payment.methods[2].type', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'payment.methods[2].amount', 'Ecf.FieldRequired');
    expect(r.errors).toHaveLength(4);
  });

  it('payment form 5 (gift certificates) only on 32', () => {
    const methods = [{ type: '5', amount: 1180 }];
    expectOnly({ ...minimal(31), payment: { condition: '1', methods } }, 'payment.methods[0].type', 'Ecf.InvalidForType');
    expectValid({ ...minimal(32), payment: { condition: '1', methods } });
  });

  it('payment method amounts have at most 2 decimals and are not negative', () => {
    const r = run({ ...minimal(31), payment: { condition: '1', methods: [{ type: '1', amount: '1.005' }, { type: '2', amount: -1 }] } });
    expectNotice(r.errors, 'payment.methods[0].amount', 'Ecf.TooManyDecimals');
    expectNotice(r.errors, 'payment.methods[1].amount', 'Ecf.OutOfRange');
  });

  it('sellerCode, nonInvoiceableAmount and additionalInfo.buyer only where the type has the element', () => {
    expectOnly({ ...minimal(41), sellerCode: 'V01' }, 'sellerCode', 'Ecf.FieldNotAllowed');
    expectOnly({ ...minimal(47), nonInvoiceableAmount: 10 }, 'nonInvoiceableAmount', 'Ecf.FieldNotAllowed');
    expectOnly({ ...minimal(43), additionalInfo: { buyer: 'x' } }, 'additionalInfo.buyer', 'Ecf.FieldNotAllowed');
    expectValid({ ...minimal(31), sellerCode: 'V01', nonInvoiceableAmount: -10, additionalInfo: { issuer: 'a', buyer: 'b' } });
  });
});

describe('buyer', () => {
  it.each([31, 41, 44, 45, 46] as EcfType[])('buyer is required for type %i', (type) => {
    const { buyer: _, ...rest } = minimal(type);
    const n = expectOnly(rest, 'buyer', 'Ecf.FieldRequired');
    expect(n.message).toContain(`type ${type}`);
  });

  it('buyer is not allowed on 43', () => {
    expectOnly({ ...minimal(43), buyer: { name: 'x' } }, 'buyer', 'Ecf.FieldNotAllowed');
  });

  it.each([31, 41, 45] as EcfType[])('buyer.rnc is required for type %i', (type) => {
    const m = minimal(type);
    expectOnly({ ...m, buyer: { name: m.buyer.name } }, 'buyer.rnc', 'Ecf.FieldRequired');
  });

  it('buyer.rnc is not allowed on 47', () => {
    expectOnly({ ...minimal(47), buyer: { rnc: '131000001' } }, 'buyer.rnc', 'Ecf.FieldNotAllowed');
  });

  it('buyer.rnc must be 9 or 11 digits', () => {
    expectOnly({ ...minimal(31), buyer: { rnc: '1310000', name: 'x' } }, 'buyer.rnc', 'Ecf.InvalidFormat');
    expectValid({ ...minimal(31), buyer: { rnc: '00100000001', name: 'x' } });
  });

  it.each([31, 41, 45] as EcfType[])('buyer.foreignId is not allowed for type %i', (type) => {
    const m = minimal(type);
    expectOnly({ ...m, buyer: { ...m.buyer, foreignId: 'P1234567' } }, 'buyer.foreignId', 'Ecf.FieldNotAllowed');
  });

  it.each([31, 41, 44, 45, 46] as EcfType[])('buyer.name is required for type %i', (type) => {
    const m = minimal(type);
    expectOnly({ ...m, buyer: { rnc: '131000001' } }, 'buyer.name', 'Ecf.FieldRequired');
  });

  it('type 47 buyer has only foreignId and name', () => {
    expectValid({ ...minimal(47), buyer: { foreignId: 'X1', name: 'Foreign Ltd' } });
    expectOnly({ ...minimal(47), buyer: { name: 'Foreign Ltd', email: 'a@b.co' } }, 'buyer.email', 'Ecf.FieldNotAllowed');
  });

  describe('type 32 at DOP 250,000', () => {
    const consumer = (unitPrice: string, buyer?: Payload) => ({
      ...minimal(32),
      ...(buyer && { buyer }),
      lines: [line({ taxTreatment: 'exempt', unitPrice })],
    });

    it('below 250,000.00 the buyer is optional', () => {
      expectValid(consumer('249999.99'));
    });

    it('at exactly 250,000.00 it needs buyer.rnc (or foreignId) and buyer.name', () => {
      const r = run(consumer('250000.00'));
      expectNotice(r.errors, 'buyer.rnc', 'Ecf.FieldRequired');
      expectNotice(r.errors, 'buyer.name', 'Ecf.FieldRequired');
      expect(r.errors).toHaveLength(2);
    });

    it('the computed MontoTotal counts ITBIS', () => {
      // 211,864.41 + 18 % = 250,000.00
      expectOnly({ ...minimal(32), buyer: { rnc: '131000001' }, lines: [line({ unitPrice: '211864.41' })] }, 'buyer.name', 'Ecf.FieldRequired');
    });

    it('a foreignId stands in for the rnc', () => {
      expectValid(consumer('300000', { foreignId: 'P998877', name: 'Tourist' }));
      expectValid(consumer('300000', { rnc: '131000001', name: 'Empresa' }));
    });
  });
});

describe('reference', () => {
  it.each([33, 34] as EcfType[])('reference is required for type %i', (type) => {
    const { reference: _, ...rest } = minimal(type);
    expectOnly(rest, 'reference', 'Ecf.FieldRequired');
  });

  it('33/34 need modifiedNcf, modifiedNcfDate and modificationCode', () => {
    const r = run({ ...minimal(34), reference: { otherIssuerRnc: '131000001' } });
    expectNotice(r.errors, 'reference.modifiedNcf', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'reference.modifiedNcfDate', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'reference.modificationCode', 'Ecf.FieldRequired');
    expect(r.errors).toHaveLength(3);
  });

  it('modifiedNcf has 11, 13 or 19 characters', () => {
    const ref = (modifiedNcf: string) => ({ ...minimal(33), reference: { ...minimal(33).reference, modifiedNcf } });
    expectOnly(ref('E31000000001'), 'reference.modifiedNcf', 'Ecf.InvalidFormat');
    expectValid(ref('B0100000001'));
    expectValid(ref('A010010010100000001'));
  });

  it('modificationCode 5 only on 31', () => {
    expectOnly({ ...minimal(34), reference: { ...minimal(34).reference, modificationCode: '5' } }, 'reference.modificationCode', 'Ecf.InvalidForType');
    expectValid({ ...minimal(31), reference: { modifiedNcf: 'E320000000007', modifiedNcfDate: '2025-06-01', modificationCode: '5' } });
  });

  it('modifiedNcfDate may not be after the issue date', () => {
    expectOnly(
      { ...minimal(33), issueDate: '2025-06-01', reference: { ...minimal(33).reference, modifiedNcfDate: '2025-06-02' } },
      'reference.modifiedNcfDate',
      'Ecf.DateAfterIssue',
    );
  });
});

describe('issue date', () => {
  it('may not be in the future', () => {
    expectOnly({ ...minimal(31), issueDate: '2025-06-11' }, 'issueDate', 'Ecf.DateInFuture');
    expect(expectValid({ ...minimal(31), issueDate: TODAY }).document!.issueDate).toBe(TODAY);
  });
});

describe('line retention', () => {
  it.each([32, 43, 44, 45, 46] as EcfType[])('is not allowed on type %i', (type) => {
    const m = minimal(type);
    expectOnly({ ...m, lines: [{ ...m.lines[0], retention: { isrWithheld: 1 } }] }, 'lines[0].retention', 'Ecf.FieldNotAllowed');
  });

  it.each([41, 47] as EcfType[])('is required on every line of type %i', (type) => {
    const m = minimal(type);
    expectOnly({ ...m, lines: [m.lines[0], line()] }, 'lines[1].retention', 'Ecf.FieldRequired');
  });

  it('47 needs isrWithheld and has no itbisWithheld', () => {
    const r = run({ ...minimal(47), lines: [line({ retention: { itbisWithheld: 18 } })] });
    expectNotice(r.errors, 'lines[0].retention.isrWithheld', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'lines[0].retention.itbisWithheld', 'Ecf.FieldNotAllowed');
    expect(r.errors).toHaveLength(2);
  });

  it('agent is 1 or 2', () => {
    expectOnly({ ...minimal(31), lines: [line({ retention: { agent: '3', itbisWithheld: 1 } })] }, 'lines[0].retention.agent', 'Ecf.InvalidValue');
  });

  it('an exempt line withheld by a retention agent has no ITBIS withheld', () => {
    expectOnly(
      { ...minimal(41), lines: [line({ taxTreatment: 'exempt', retention: { agent: '1', itbisWithheld: 10 } })] },
      'lines[0].retention.itbisWithheld',
      'Ecf.InvalidValue',
    );
  });
});

describe('line treatment and amounts', () => {
  it.each([43, 44, 47] as EcfType[])('type %i accepts only exempt lines, exempt by default', (type) => {
    const m = minimal(type);
    const n = expectOnly({ ...m, lines: [{ ...m.lines[0], taxTreatment: 'taxed' }] }, 'lines[0].taxTreatment', 'Ecf.InvalidForType');
    expect(n.message).toContain(`type ${type}`);
    expect(expectValid(m).document!.lines[0]!.taxTreatment).toBe('exempt');
  });

  it('non-invoiceable lines: yes on 44, no on 43, 47 and 41 (no MontoNoFacturable in their XSD)', () => {
    expectValid({ ...minimal(44), lines: [line({ taxTreatment: 'non_invoiceable' })] });
    expectOnly({ ...minimal(43), lines: [line({ taxTreatment: 'non_invoiceable' })] }, 'lines[0].taxTreatment', 'Ecf.InvalidForType');
    expectOnly(
      { ...minimal(41), lines: [line({ taxTreatment: 'non_invoiceable', retention: { isrWithheld: 1 } })] },
      'lines[0].taxTreatment',
      'Ecf.InvalidForType',
    );
  });

  it('type 46 accepts only 0 % lines and defaults to 0', () => {
    expectOnly({ ...minimal(46), lines: [line({ itbisRate: 18 })] }, 'lines[0].itbisRate', 'Ecf.InvalidForType');
    expectOnly({ ...minimal(46), lines: [line({ taxTreatment: 'exempt' })] }, 'lines[0].taxTreatment', 'Ecf.InvalidForType');
    expect(expectValid(minimal(46)).document!.lines[0]!.itbisRate).toBe(0);
  });

  it('itbisRate is 18, 16 or 0, and only on taxed lines', () => {
    expectOnly({ ...minimal(31), lines: [line({ itbisRate: 10 })] }, 'lines[0].itbisRate', 'Ecf.InvalidValue');
    expectOnly({ ...minimal(31), lines: [line({ taxTreatment: 'exempt', itbisRate: 18 })] }, 'lines[0].itbisRate', 'Ecf.FieldNotAllowed');
    expectOnly({ ...minimal(43), lines: [line({ itbisRate: 0 })] }, 'lines[0].itbisRate', 'Ecf.FieldNotAllowed');
    expectValid({ ...minimal(31), lines: [line({ itbisRate: '16' }), line({ itbisRate: 0 })] });
  });

  it('quantity and unitPrice are required on every line', () => {
    const r = run({ ...minimal(31), lines: [{ name: 'x' }] });
    expectNotice(r.errors, 'lines[0].quantity', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'lines[0].unitPrice', 'Ecf.FieldRequired');
    expect(r.errors).toHaveLength(2);
  });

  it('quantity > 0, unitPrice, discount and surcharge ≥ 0', () => {
    const r = run({ ...minimal(31), lines: [line({ quantity: 0, unitPrice: -1, discount: -1, surcharge: '-0.01' })] });
    expectNotice(r.errors, 'lines[0].quantity', 'Ecf.OutOfRange');
    expectNotice(r.errors, 'lines[0].unitPrice', 'Ecf.OutOfRange');
    expectNotice(r.errors, 'lines[0].discount', 'Ecf.OutOfRange');
    expectNotice(r.errors, 'lines[0].surcharge', 'Ecf.OutOfRange');
    expect(r.errors).toHaveLength(4);
    expectValid({ ...minimal(31), lines: [line({ unitPrice: 0 })] });
  });

  it('precision: quantity 2, unitPrice 4, amounts 2 decimals', () => {
    const r = run({ ...minimal(31), lines: [line({ quantity: '1.005', unitPrice: '10.12345', discount: '0.001', surcharge: 0.125, declaredAmount: '1.111' })] });
    for (const field of ['quantity', 'unitPrice', 'discount', 'surcharge', 'declaredAmount']) expectNotice(r.errors, `lines[0].${field}`, 'Ecf.TooManyDecimals');
    expect(r.errors).toHaveLength(5);
    expectValid({ ...minimal(31), lines: [line({ quantity: '1.25', unitPrice: '10.1234', discount: '0.50' })] });
  });

  it('a discount beyond the line amount is refused (MontoItem ≥ 0)', () => {
    expectOnly({ ...minimal(31), lines: [line({ unitPrice: 10, discount: 11 })] }, 'lines[0].discount', 'Ecf.OutOfRange');
  });

  it.each([43, 47] as EcfType[])('type %i has no line discounts or surcharges', (type) => {
    const m = minimal(type);
    const r = run({ ...m, lines: [{ ...m.lines[0], discount: 1, surcharge: 1 }] });
    expectNotice(r.errors, 'lines[0].discount', 'Ecf.FieldNotAllowed');
    expectNotice(r.errors, 'lines[0].surcharge', 'Ecf.FieldNotAllowed');
    expectValid({ ...m, lines: [{ ...m.lines[0], discount: 0 }] });
  });

  it('47 lines are services, by default too', () => {
    expectOnly({ ...minimal(47), lines: [line({ kind: 'good', retention: { isrWithheld: 1 } })] }, 'lines[0].kind', 'Ecf.InvalidForType');
    expect(expectValid(minimal(47)).document!.lines[0]!.kind).toBe('service');
  });

  it('unitOfMeasure is a code of the authority table', () => {
    expectOnly({ ...minimal(31), lines: [line({ unitOfMeasure: 'UND' })] }, 'lines[0].unitOfMeasure', 'Ecf.InvalidValue');
    expectValid({ ...minimal(31), lines: [line({ unitOfMeasure: '43' })] });
  });

  it('line count follows each XSD: 1,000, or 10,000 on 33 and 34', () => {
    const many = (n: number) => Array.from({ length: n }, () => line({ unitPrice: 1 }));
    expectOnly({ ...minimal(31), lines: many(1001) }, 'lines', 'Ecf.TooManyItems');
    expectOnly({ ...minimal(32), lines: many(1001) }, 'lines', 'Ecf.TooManyItems');
    expectValid({ ...minimal(31), lines: many(1000) });
    expectValid({ ...minimal(33), lines: many(1001) });
    expectOnly({ ...minimal(34), lines: many(10001) }, 'lines', 'Ecf.TooManyItems');
  });
});

describe('additional taxes and item details', () => {
  const withTax = (type: EcfType, tax: Payload, details?: Payload, extra: Payload = {}) => {
    const m = minimal(type);
    return { ...m, lines: [{ ...m.lines[0], ...extra, additionalTaxes: [tax], ...(details && { details }) }] };
  };

  it('codes 006–018 need reference quantity, unit, subquantities and alcohol degrees', () => {
    const r = run(withTax(31, { code: '006', rate: '632.58', iscEspecifico: '120.50' }));
    for (const key of ['referenceQuantity', 'referenceUnit', 'subquantities', 'alcoholDegrees']) {
      expectNotice(r.errors, `lines[0].details.${key}`, 'Ecf.FieldRequired');
    }
    expect(r.errors).toHaveLength(4);
    expectValid(
      withTax(31, { code: '006', rate: '632.58', iscEspecifico: '120.50' }, {
        referenceQuantity: 12,
        referenceUnit: '31',
        subquantities: [{ quantity: '0.355', unitCode: '47' }],
        alcoholDegrees: '5.00',
      }),
    );
  });

  it('codes 019–022 need the reference data but not alcohol degrees', () => {
    const r = run(withTax(31, { code: '020', rate: '53.51', iscEspecifico: 10 }, { referenceUnit: '7' }));
    expectNotice(r.errors, 'lines[0].details.referenceQuantity', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'lines[0].details.subquantities', 'Ecf.FieldRequired');
    expect(r.errors).toHaveLength(2);
  });

  it('codes 023–039 need referenceUnitPrice', () => {
    expectOnly(withTax(32, { code: '023', rate: 10, iscAdvalorem: 5 }), 'lines[0].details.referenceUnitPrice', 'Ecf.FieldRequired');
    expectValid(withTax(32, { code: '023', rate: 10, iscAdvalorem: 5 }, { referenceUnitPrice: '50.00' }));
  });

  it('codes outside Tabla I are shape errors', () => {
    const r = run(withTax(31, { code: '040', rate: 10 }));
    expect(r.errors.map((e) => e.path)).toEqual(['lines[0].additionalTaxes[0].code']);
  });

  it('the rate is required and each amount goes with its code range', () => {
    const r = run(withTax(31, { code: '001', otros: 100, iscEspecifico: 5 }));
    expectNotice(r.errors, 'lines[0].additionalTaxes[0].rate', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'lines[0].additionalTaxes[0].iscEspecifico', 'Ecf.FieldNotAllowed');
    expect(r.errors).toHaveLength(2);
  });

  it.each([41, 43, 46, 47] as EcfType[])('are not allowed on type %i (no TablaImpuestoAdicional in its XSD)', (type) => {
    expectOnly(withTax(type, { code: '001', rate: 10, otros: 100 }), 'lines[0].additionalTaxes', 'Ecf.FieldNotAllowed');
  });

  it('type 44 takes only codes 001–005', () => {
    expectValid(withTax(44, { code: '001', rate: 10, otros: 100 }));
    expectOnly(withTax(44, { code: '023', rate: 10, iscAdvalorem: 5 }), 'lines[0].additionalTaxes[0].code', 'Ecf.InvalidForType');
  });

  it('mining details only on 32, 33, 34 and 46', () => {
    const mining = { details: { mining: { netWeightKilogram: 10, affiliationType: 1 } } };
    expectOnly({ ...minimal(31), lines: [line(mining)] }, 'lines[0].details.mining', 'Ecf.FieldNotAllowed');
    for (const type of [32, 33, 34, 46] as EcfType[]) expectValid({ ...minimal(type), lines: [line(mining)] });
  });

  it('reference details and item dates only where the XSD has them', () => {
    const m = minimal(47);
    const r = run({ ...m, lines: [{ ...m.lines[0], details: { referenceUnitPrice: 1, expiryDate: '2026-01-01' } }] });
    expectNotice(r.errors, 'lines[0].details.referenceUnitPrice', 'Ecf.FieldNotAllowed');
    expectNotice(r.errors, 'lines[0].details.expiryDate', 'Ecf.FieldNotAllowed');
    expect(r.errors).toHaveLength(2);
  });

  it('subquantities have up to 3 decimals', () => {
    const details = { referenceQuantity: 1, referenceUnit: '31', subquantities: [{ quantity: '0.3555', unitCode: '47' }], alcoholDegrees: 5 };
    expectOnly(withTax(31, { code: '006', rate: 632.58, iscEspecifico: 1 }, details), 'lines[0].details.subquantities[0].quantity', 'Ecf.TooManyDecimals');
  });
});

describe('shipping and transport', () => {
  const exportBlock = { export: { loadingPortName: 'Haina', totalFob: 1000 } };
  it('shipping.export only on 46', () => {
    expectOnly({ ...minimal(31), shipping: exportBlock }, 'shipping.export', 'Ecf.FieldNotAllowed');
    expectValid({ ...minimal(46), shipping: exportBlock });
  });

  it('shipping is not allowed on 41, 43 and 47', () => {
    expectOnly({ ...minimal(43), shipping: { shipmentNumber: '1' } }, 'shipping', 'Ecf.FieldNotAllowed');
  });

  it('transport fields follow the XSD of the type', () => {
    expectOnly({ ...minimal(41), transport: { driver: 'Juan' } }, 'transport', 'Ecf.FieldNotAllowed');
    expectOnly({ ...minimal(47), transport: { driver: 'Juan', destinationCountry: 'US' } }, 'transport.driver', 'Ecf.FieldNotAllowed');
    expectOnly({ ...minimal(31), transport: { voyageNumber: 'V1' } }, 'transport.voyageNumber', 'Ecf.FieldNotAllowed');
    expectValid({ ...minimal(46), transport: { driver: 'Juan', voyageNumber: 'V1' } });
  });
});

describe('global adjustments', () => {
  const adj = (type: EcfType, globalAdjustments: Payload[], lines?: Payload[]) => ({ ...minimal(type), globalAdjustments, ...(lines && { lines }) });

  it('line numbers are ≥ 1 and unique', () => {
    const r = run(adj(31, [{ line: 0, amount: 1 }, { line: 2, amount: 1 }, { line: 2, amount: 1 }]));
    expectNotice(r.errors, 'globalAdjustments[0].line', 'Ecf.OutOfRange');
    expectNotice(r.errors, 'globalAdjustments[2].line', 'Ecf.Duplicate');
    expect(r.errors).toHaveLength(2);
  });

  it('affectsItbisRate is 1–4 and must name a group with lines', () => {
    expectOnly(adj(31, [{ line: 1, affectsItbisRate: 5, amount: 1 }]), 'globalAdjustments[0].affectsItbisRate', 'Ecf.OutOfRange');
    expectOnly(adj(31, [{ line: 1, affectsItbisRate: 2, amount: 1 }]), 'globalAdjustments[0].affectsItbisRate', 'Ecf.EmptyGroup');
    expectValid(adj(31, [{ line: 1, affectsItbisRate: 2, amount: 1 }], [line({ itbisRate: 16 })]));
  });

  it('percentage is within 0–100 and amount is not negative', () => {
    const r = run(adj(31, [{ line: 1, percentage: 101 }, { line: 2, percentage: 0 }, { line: 3, amount: -5 }, { line: 4, percentage: '10.125' }]));
    expectNotice(r.errors, 'globalAdjustments[0].percentage', 'Ecf.OutOfRange');
    expectNotice(r.errors, 'globalAdjustments[1].percentage', 'Ecf.OutOfRange');
    expectNotice(r.errors, 'globalAdjustments[2].amount', 'Ecf.OutOfRange');
    expectNotice(r.errors, 'globalAdjustments[3].percentage', 'Ecf.TooManyDecimals');
    expect(r.errors).toHaveLength(4);
  });

  it('are not allowed on 43 and 47; norm1007 only on 31–34 and 45', () => {
    expectOnly(adj(43, [{ line: 1, affectsItbisRate: 4, amount: 1 }]), 'globalAdjustments', 'Ecf.FieldNotAllowed');
    expectOnly(adj(41, [{ line: 1, amount: 1, norm1007: true }]), 'globalAdjustments[0].norm1007', 'Ecf.FieldNotAllowed');
  });

  it('default to the only group of 44 (exempt) and 46 (0 %)', () => {
    expect(expectValid(adj(44, [{ line: 1, amount: 10 }])).document!.totalsInput.adjustments[0]!.indicator).toBe(4);
    expect(expectValid(adj(46, [{ line: 1, amount: 10 }])).document!.totalsInput.adjustments[0]!.indicator).toBe(3);
  });
});

describe('foreign currency', () => {
  const fc = (foreignCurrency: Payload, type: EcfType = 31) => ({ ...minimal(type), foreignCurrency });

  it('currency is in Tabla II (CHY and SCP included, CNY not)', () => {
    expectOnly(fc({ currency: 'CNY', exchangeRate: 8 }), 'foreignCurrency.currency', 'Ecf.InvalidValue');
    expectValid(fc({ currency: 'CHY', exchangeRate: 8 }));
    expectValid(fc({ currency: 'SCP', exchangeRate: 8 }));
    expectValid(fc({ currency: 'COP', exchangeRate: '0.0145' }));
  });

  it('exchangeRate > 0 with at most 4 decimals', () => {
    expectOnly(fc({ currency: 'USD', exchangeRate: 0 }), 'foreignCurrency.exchangeRate', 'Ecf.OutOfRange');
    expectOnly(fc({ currency: 'USD', exchangeRate: '58.12345' }), 'foreignCurrency.exchangeRate', 'Ecf.TooManyDecimals');
  });

  it('a line in other currency needs the document currency', () => {
    expectOnly({ ...minimal(31), lines: [line({ foreignCurrency: { unitPrice: '17.2000' } })] }, 'lines[0].foreignCurrency', 'Ecf.FieldNotAllowed');
  });

  it('foreign totals only for groups the type can have', () => {
    expectOnly(fc({ currency: 'USD', exchangeRate: 58, totals: { montoExento: 10 } }, 46), 'foreignCurrency.totals.montoExento', 'Ecf.FieldNotAllowed');
  });
});

describe('tolerance warnings (NOTES §12.3)', () => {
  it('a declaredAmount more than 1.00 away from MontoItem warns, and does not block', () => {
    const r = run({ ...minimal(31), lines: [line({ quantity: 3, unitPrice: '0.335', declaredAmount: '2.01' }), line({ declaredAmount: '1001.01' })] });
    expect(r.errors).toEqual([]);
    expect(r.document).not.toBeNull();
    expect(r.warnings).toEqual([expect.objectContaining({ path: 'lines[1].declaredAmount', code: 'Ecf.ToleranceExceeded' })]);
  });

  it('declared totals more than the number of lines away warn, one per field', () => {
    // two lines of 1,000.00 at 18 %: gravado 2,000.00, ITBIS 360.00, total 2,360.00
    const r = run({
      ...minimal(31),
      lines: [line(), line()],
      declaredTotals: { montoGravadoTotal: '2002.00', totalItbis: '362.01', montoTotal: '2357.99', montoExento: '0.00' },
    });
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => [w.path, w.code])).toEqual([
      ['declaredTotals.totalItbis', 'Ecf.ToleranceExceeded'],
      ['declaredTotals.montoTotal', 'Ecf.ToleranceExceeded'],
    ]);
  });
});

describe('every problem at once', () => {
  it('reports five problems in five places', () => {
    const r = run({
      type: 31,
      payment: { condition: '2', dueDate: '2025-07-01' },
      buyer: { rnc: '12345', name: 'Comprador SRL' }, // 1: rnc format
      lines: [
        line({ quantity: 'tres' }), // 2: shape error
        line({ itbisRate: 12 }), // 3: rate
      ],
      globalAdjustments: [{ line: 1, affectsItbisRate: 4, amount: 5 }], // 4: no exempt lines
      foreignCurrency: { currency: 'USD', exchangeRate: '60.123456' }, // 5: precision
      incomeType: '01',
    });
    expect(r.document).toBeNull();
    expect(r.errors.map((e) => [e.path, e.code]).sort()).toEqual(
      [
        ['buyer.rnc', 'Ecf.InvalidFormat'],
        ['lines[0].quantity', 'Union'],
        ['lines[1].itbisRate', 'Ecf.InvalidValue'],
        ['globalAdjustments[0].affectsItbisRate', 'Ecf.EmptyGroup'],
        ['foreignCurrency.exchangeRate', 'Ecf.TooManyDecimals'],
      ].sort(),
    );
  });

  it('a shape error elsewhere does not hide the matrix errors', () => {
    const { incomeType: _, ...rest } = minimal(44);
    const r = run({ ...rest, internalNumber: '', lines: [line({ taxTreatment: 'taxed' })] });
    expectNotice(r.errors, 'internalNumber', 'StringMinLength');
    expectNotice(r.errors, 'incomeType', 'Ecf.FieldRequired');
    expectNotice(r.errors, 'lines[0].taxTreatment', 'Ecf.InvalidForType');
  });

  it('without a readable type, the type-independent rules still run', () => {
    const r = run({ type: 30, lines: [line({ quantity: -1 })], buyer: { rnc: '1' } });
    expectNotice(r.errors, 'type', 'Union');
    expectNotice(r.errors, 'lines[0].quantity', 'Ecf.OutOfRange');
    expectNotice(r.errors, 'buyer.rnc', 'Ecf.InvalidFormat');
  });

  it('a body that is not an object gives the shape error only', () => {
    expect(run([1, 2]).errors).toEqual([expect.objectContaining({ path: '(body)' })]);
  });
});

describe('the normalized document', () => {
  it('applies the defaults', () => {
    const r = expectValid({
      ...minimal(31),
      pricesIncludeTax: true,
      lines: [line({ quantity: '2', unitPrice: 118 }), line({ priceIncludesTax: false, taxTreatment: 'exempt', discount: '5.00' })],
      globalAdjustments: [{ line: 1, percentage: 10 }],
      payment: { condition: '1', methods: [{ type: '1', amount: '236.00' }] },
    });
    const doc = r.document!;
    expect(doc.issueDate).toBe(TODAY);
    expect(doc.encf).toBeNull();
    expect(doc.sequenceExpiresOn).toBeNull();
    expect(doc.incomeType).toBe('01');
    expect(doc.paymentCondition).toBe('1');
    expect(doc.paymentDueDate).toBeNull();
    expect(doc.paymentMethods).toEqual([{ type: '1', amount: new Dec('236.00') }]);
    expect(doc.paymentMethods[0]!.amount).toBeInstanceOf(Dec);
    expect(doc.deferredDelivery).toBe(false);

    const [a, b] = doc.lines;
    expect(a).toMatchObject({ kind: 'good', taxTreatment: 'taxed', itbisRate: 18, priceIncludesTax: true, codes: [], retention: null, additionalTaxes: [], details: null, foreignCurrency: null, unitOfMeasure: null, description: null, declaredAmount: null });
    expect(a!.quantity.equals(2)).toBe(true);
    expect(a!.unitPrice.equals(118)).toBe(true);
    expect(a!.discount.isZero() && a!.surcharge.isZero()).toBe(true);
    expect(b).toMatchObject({ taxTreatment: 'exempt', itbisRate: null, priceIncludesTax: false });
    expect(b!.discount.equals(5)).toBe(true);

    expect(doc.totalsInput.pricesIncludeTax).toBe(true);
    expect(doc.totalsInput.nonInvoiceableAmount.isZero()).toBe(true);
    expect(doc.totalsInput.lines.map((l) => [l.treatment, l.rate, l.priceIncludesTax])).toEqual([
      ['taxed', 18, true],
      ['exempt', 0, false],
    ]);
    expect(doc.totalsInput.adjustments).toEqual([{ kind: 'discount', indicator: 1, amount: new Dec(0), percentage: new Dec(10), norm1007: false }]);
    expect(doc.command).toMatchObject({ type: 31, globalAdjustments: [{ line: 1, percentage: 10 }] });
  });

  it('types 43, 44 and 47 default to exempt; 46 to 0 %; 41 and 47 retention agent to 1', () => {
    for (const type of [43, 44, 47] as EcfType[]) expect(expectValid(minimal(type)).document!.totalsInput.lines[0]!.treatment).toBe('exempt');
    expect(expectValid(minimal(46)).document!.totalsInput.lines[0]).toMatchObject({ treatment: 'taxed', rate: 0 });
    expect(expectValid(minimal(41)).document!.lines[0]!.retention).toEqual({ agent: '1', itbisWithheld: new Dec(180), isrWithheld: new Dec(100) });
    expect(expectValid(minimal(47)).document!.lines[0]!.retention).toEqual({ agent: '1', itbisWithheld: null, isrWithheld: new Dec(270) });
    expect(expectValid(minimal(31)).document!.lines[0]!.retention).toBeNull();
  });

  it('keeps additional taxes, details and line currency as decimals', () => {
    const doc = expectValid({
      ...minimal(31),
      foreignCurrency: { currency: 'USD', exchangeRate: '58.5000' },
      lines: [
        line({
          additionalTaxes: [{ code: '001', rate: 10, otros: '100.00' }],
          foreignCurrency: { unitPrice: '17.0940' },
          details: { manufactureDate: '2025-01-01' },
          codes: [{ type: 'EAN', value: '7460000000001' }],
          unitOfMeasure: '43',
          description: 'Horas',
          declaredAmount: '1000.00',
        }),
      ],
    }).document!;
    const l = doc.lines[0]!;
    expect(l.additionalTaxes).toEqual([{ code: '001', rate: new Dec(10), iscEspecifico: new Dec(0), iscAdvalorem: new Dec(0), otros: new Dec(100) }]);
    expect(l.foreignCurrency).toEqual({ unitPrice: new Dec('17.094'), discount: null, surcharge: null, lineAmount: null });
    expect(l.details).toMatchObject({ manufactureDate: '2025-01-01', subquantities: [], referenceQuantity: null, mining: null });
    expect(l).toMatchObject({ codes: [{ type: 'EAN', value: '7460000000001' }], unitOfMeasure: '43', description: 'Horas' });
    expect(l.declaredAmount!.equals(1000)).toBe(true);
    expect(doc.totalsInput.lines[0]!.additionalTaxes).toEqual([{ code: '001', rate: new Dec(10), especifico: new Dec(0), advalorem: new Dec(0), otros: new Dec(100) }]);
  });
});
