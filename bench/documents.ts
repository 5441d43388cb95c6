// The invoice the signing bench uses: an e-CF 31 of about 5 KB (12 lines), built by the real pipeline.
import { prepareDocument } from '../src/engine/documents/prepare.js';
import { ecfData, type Issuer } from '../src/engine/documents/ecf-xml.js';
import { serialize } from '../src/engine/xml/canonical.js';

export const issuer: Issuer = {
  rnc: '131234567',
  legalName: 'Ferretería Ñoño & Hijos SRL',
  tradeName: 'Ferretería Ñoño',
  address: 'Calle El Conde 12, Zona Colonial',
  municipality: '010100',
  province: '010000',
  phones: ['809-555-1234'],
  email: 'ventas@ferreteria.do',
  economicActivity: 'Venta de materiales de construcción',
};

export const payload = {
  type: 31,
  incomeType: '01',
  payment: { condition: '2', dueDate: '2026-04-10', methods: [{ type: '4', amount: '5000.00' }] },
  buyer: { rnc: '131880681', name: 'Constructora Ejemplo SRL', email: 'compras@ejemplo.do' },
  lines: Array.from({ length: 12 }, (_, i) => ({
    name: `Artículo de ferretería ${i + 1}: tornillos & tuercas ñ`,
    quantity: 1 + (i % 4),
    unitPrice: `${150 + i}.75`,
    ...(i % 3 === 0 && { discount: '5.00' }),
    ...(i % 5 === 0 && { itbisRate: 16 }),
    codes: [{ type: 'EAN', value: `74600000000${10 + i}` }],
  })),
};

export const numbering = { encf: 'E310000000001', sequenceExpiresOn: '2027-12-31' };

/** validate → totals → element data → canonical XML, everything but the signature. */
export function buildCanonical(): string {
  const outcome = prepareDocument(payload, { sequenceMode: 'managed', today: '2026-03-10' });
  if (!outcome.document) throw new Error(JSON.stringify(outcome.errors));
  const computed = outcome.document.computed;
  return serialize('ecf31', ecfData(outcome.document, computed, issuer, numbering, '10-03-2026 10:05:09'));
}

export function benchDocument(): { name: string; canonical: string } {
  return { name: 'e-CF 31, 12 lines', canonical: buildCanonical() };
}
