/**
 * Varied issue payloads across the ten types: each is valid and must come
 * out as a document the official schema accepts. Built from a base per type
 * and variations that exercise one feature each.
 */
type Payload = Record<string, unknown>;

const buyer = { rnc: '131880681', name: 'Constructora Ejemplo SRL' };
const taxed = (name: string, quantity: string | number, unitPrice: string | number, extra: Payload = {}) => ({ name, quantity, unitPrice, ...extra });
const reference = { modifiedNcf: 'E310000000005', modifiedNcfDate: '2026-02-01', modificationCode: '3' };

const base: Record<number, Payload> = {
  31: { type: 31, incomeType: '01', payment: { condition: '1' }, buyer, lines: [taxed('Cemento gris 42.5 kg', 10, '350.00')] },
  32: { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [taxed('Refresco 2L', 2, '95.00')] },
  33: { type: 33, incomeType: '01', payment: { condition: '1' }, buyer, reference: { ...reference, modificationCode: '3' }, lines: [taxed('Ajuste de precio', 1, '100.00')] },
  34: { type: 34, incomeType: '01', payment: { condition: '1' }, buyer, reference, lines: [taxed('Devolución cemento', 1, '350.00')] },
  41: { type: 41, payment: { condition: '1' }, buyer, lines: [taxed('Compra de yuca', 100, '25.00', { retention: { agent: '1', itbisWithheld: '0.00', isrWithheld: '50.00' } })] },
  43: { type: 43, lines: [{ name: 'Pasaje', quantity: 1, unitPrice: '150.00' }] },
  44: { type: 44, incomeType: '01', payment: { condition: '1' }, buyer, lines: [{ name: 'Servicio a zona franca', kind: 'service', quantity: 1, unitPrice: '5000.00' }] },
  45: { type: 45, incomeType: '01', payment: { condition: '2', dueDate: '2026-04-10' }, buyer, lines: [taxed('Materiales de oficina', 3, '1200.00')] },
  46: { type: 46, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Export Buyer SRL' }, lines: [{ name: 'Cacao en grano', quantity: 1000, unitPrice: '180.00', itbisRate: 0 }] },
  47: { type: 47, payment: { condition: '1' }, lines: [{ name: 'Licencia de software', kind: 'service', quantity: 1, unitPrice: '50000.00', retention: { agent: '1', isrWithheld: '13500.00' } }] },
};

const variations: [string, (p: Payload, type: number) => Payload | null][] = [
  ['as is', (p) => p],
  ['three lines with text needing escapes', (p, t) => ({
    ...p,
    lines: [
      ...(p.lines as Payload[]),
      { ...(p.lines as Payload[])[0], name: 'Tornillos & tuercas <3/8"> Ñoño', description: 'Acero "inoxidable" – año 2026, ñandú' },
      { ...(p.lines as Payload[])[0], name: 'Línea con cantidad decimal', quantity: '2.5', unitPrice: '0.335' },
    ],
    ...(t === 43 || t === 47 ? {} : {}),
  })],
  ['prices including ITBIS', (p, t) => ([31, 32, 33, 34, 41, 45].includes(t) ? { ...p, pricesIncludeTax: true } : null)],
  ['16 % and exempt lines', (p, t) => ([31, 32, 45].includes(t) ? {
    ...p,
    lines: [...(p.lines as Payload[]), taxed('Yogurt', 4, '85.00', { itbisRate: 16 }), { name: 'Libro escolar', quantity: 2, unitPrice: '650.00', taxTreatment: 'exempt' }],
  } : null)],
  ['line discounts and surcharges', (p, t) => (t === 43 || t === 47 ? null : {
    ...p,
    lines: (p.lines as Payload[]).map((l) => ({ ...l, discount: '10.00', surcharge: '2.50' })),
  })],
  ['a global discount', (p, t) => ([31, 32, 45].includes(t) ? {
    ...p,
    globalAdjustments: [{ line: 1, kind: 'discount', affectsItbisRate: 1, amount: '100.00', description: 'Descuento por volumen' }],
  } : null)],
  ['payment methods and a credit term', (p, t) => ([31, 32, 41, 44, 45, 46, 47].includes(t) ? {
    ...p,
    payment: { condition: '2', dueDate: '2026-04-30', methods: [{ type: '4', amount: '100.00' }, { type: '1', amount: '50.00' }] },
  } : null)],
  ['seller code, internal number, additional info', (p, t) => ([41, 43, 47].includes(t) ? null : {
    ...p,
    sellerCode: 'V-007',
    internalNumber: `INT-${t}-0001`,
    additionalInfo: { issuer: 'Gracias por su compra' },
  })],
  ['foreign currency', (p, t) => ([31, 44, 45, 46].includes(t) ? { ...p, foreignCurrency: { currency: 'USD', exchangeRate: '59.1234' } } : null)],
  ['line codes and unit of measure', (p) => ({
    ...p,
    lines: (p.lines as Payload[]).map((l) => ({ ...l, codes: [{ type: 'EAN', value: '7460000000017' }], unitOfMeasure: '43' })),
  })],
  ['alcohol with ISC', (p, t) => ([31, 32, 45].includes(t) ? {
    ...p,
    lines: [
      ...(p.lines as Payload[]),
      {
        name: 'Ron añejo 700 ml',
        quantity: 12,
        unitPrice: '650.00',
        additionalTaxes: [
          { code: '016', rate: '632.58', iscEspecifico: '2125.47' },
          { code: '033', rate: '10', iscAdvalorem: '780.00' },
        ],
        details: { referenceQuantity: '0.70', referenceUnit: '47', subquantities: [{ quantity: '0.280', unitCode: '47' }], alcoholDegrees: '40.00', referenceUnitPrice: '650.00' },
      },
    ],
  } : null)],
  ['tip (propina legal)', (p, t) => ([31, 32, 45].includes(t) ? {
    ...p,
    lines: (p.lines as Payload[]).map((l, i) => (i === 0 ? { ...l, additionalTaxes: [{ code: '001', rate: '10', otros: String(Number(l.unitPrice) * Number(l.quantity) / 10) }] } : l)),
  } : null)],
  ['shipping and transport', (p, t) => (t === 43 || t === 41 || t === 47 ? null : {
    ...p,
    shipping: { shipmentDate: '2026-03-09', shipmentNumber: 'EMB-77', grossWeight: '1500.00', netWeight: '1450.00', packageCount: '30' },
    transport: { driver: 'Juan Pérez', plate: 'L123456', route: 'Norte' },
  })],
  ['export details', (p, t) => (t === 46 ? {
    ...p,
    shipping: { export: { loadingPortName: 'Haina', deliveryTerms: 'FOB', totalFob: '180000.00', insurance: '500.00', freight: '2500.00', totalCif: '183000.00', customsRegime: 'Exportación definitiva' } },
    transport: { via: '01', originCountry: 'República Dominicana', destinationCountry: 'Países Bajos', carrierName: 'Naviera Caribe' },
  } : null)],
  ['a buyer with contact data', (p, t) => ([31, 32, 33, 34, 41, 44, 45, 46].includes(t) ? {
    ...p,
    buyer: { ...(p.buyer as Payload ?? buyer), email: 'compras@ejemplo.do', contact: 'María López', address: 'Av. 27 de Febrero 300', municipality: '010100', province: '010000' },
  } : null)],
  ['a non-invoiceable line', (p, t) => ([31, 32, 33, 34, 45].includes(t) ? {
    ...p,
    lines: [...(p.lines as Payload[]), { name: 'Depósito de envase (reembolsable)', quantity: 1, unitPrice: '25.00', taxTreatment: 'non_invoiceable' }],
  } : null)],
  ['pagination and subtotals', (p, t) => (t === 31 ? {
    ...p,
    subtotals: [{ number: 1, order: 1, description: 'Materiales', lines: 1, montoGravadoTotal: '3500.00', amount: '4130.00' }],
    pagination: [
      { number: 1, lineFrom: 1, lineTo: 1, montoGravadoTotal: '3500.00', amount: '4130.00' },
      { number: 2, lineFrom: 2, lineTo: 2, montoGravadoTotal: '0.00', amount: '0.00' },
    ],
  } : null)],
];

export interface CorpusCase {
  readonly name: string;
  readonly payload: Payload;
}

export function corpus(): CorpusCase[] {
  const out: CorpusCase[] = [];
  for (const type of [31, 32, 33, 34, 41, 43, 44, 45, 46, 47]) {
    for (const [label, vary] of variations) {
      const payload = vary(structuredClone(base[type]!), type);
      if (payload) out.push({ name: `e-CF ${type}: ${label}`, payload });
    }
  }
  // Type 32 at and above the RFCE threshold needs the buyer.
  out.push({ name: 'e-CF 32: exactly 250,000.00 (no RFCE)', payload: { ...base[32], buyer, lines: [{ name: 'Equipo', quantity: 1, unitPrice: '250000.00', taxTreatment: 'exempt' }] } });
  out.push({ name: 'e-CF 34: text-only correction (non-invoiceable line)', payload: { ...base[34], reference: { ...reference, modificationCode: '2' }, lines: [{ name: 'Corrige razón social del comprador', quantity: 1, unitPrice: '0', taxTreatment: 'non_invoiceable' }] } });
  out.push({ name: 'e-CF 31: a thousand lines', payload: { ...base[31], lines: Array.from({ length: 1000 }, (_, i) => taxed(`Artículo ${i + 1} ñ & más`, 1 + (i % 7), `${(i % 50) + 1}.99`)) } });
  return out;
}
