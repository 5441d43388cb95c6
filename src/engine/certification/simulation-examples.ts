/**
 * Built-in payloads for the Paso 4 simulation (CERTIFICATION.md §2.6), in
 * the shape POST /api/v1/ecf takes, one per position of each slot's quota.
 * They live in the package (not in test/) so `ecf certify simulate` works
 * without a folder of the person's own. Each position differs from the
 * others of its slot (lines, buyer), so duplicate detection never takes two
 * of them for the same sale. No dates: they must stay valid on any day.
 *
 * Notes (33, 34) name the type of the e-CF they modify with a three-letter
 * `reference.modifiedNcf` such as "E31"; the simulation puts the e-NCF and
 * date of an accepted simulation e-CF of that type in its place.
 */

type Payload = Record<string, unknown>;

const constructora = { rnc: '131880681', name: 'Constructora Ejemplo SRL' };
const distribuidora = { rnc: '101010632', name: 'Distribuidora del Caribe SRL' };
const line = (name: string, quantity: number | string, unitPrice: string, extra: Payload = {}) => ({ name, quantity, unitPrice, ...extra });

export const SIMULATION_EXAMPLES: Readonly<Record<string, readonly Payload[]>> = {
  '31': [
    { type: 31, incomeType: '01', payment: { condition: '1', methods: [{ type: '1', amount: '4130.00' }] }, buyer: constructora, lines: [line('Cemento gris 42.5 kg', 10, '350.00')] },
    { type: 31, incomeType: '01', payment: { condition: '1' }, buyer: constructora, lines: [line('Varilla corrugada 3/8', 20, '185.50'), line('Alambre dulce (lb)', 15, '45.00')] },
    { type: 31, incomeType: '01', payment: { condition: '1' }, buyer: distribuidora, lines: [line('Pintura acrílica blanca (galón)', 6, '1250.00')] },
    { type: 31, incomeType: '02', payment: { condition: '1' }, buyer: distribuidora, lines: [line('Instalación eléctrica', 1, '8500.00', { kind: 'service' })] },
  ],
  '32': [
    { type: 32, incomeType: '01', payment: { condition: '1' }, buyer: constructora, lines: [line('Planta eléctrica 25 kW', 1, '285000.00')] },
    { type: 32, incomeType: '01', payment: { condition: '1' }, buyer: distribuidora, lines: [line('Montacargas usado', 1, '310000.00', { taxTreatment: 'exempt' })] },
  ],
  '32-rfce': [
    { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [line('Refresco 2L', 2, '95.00'), line('Pan sobao', 4, '22.50')] },
    { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [line('Martillo de uña 16 oz', 1, '450.00')] },
    { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [line('Cinta métrica 5 m', 2, '275.00'), line('Guantes de trabajo', 3, '120.00')] },
    { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [line('Bombillo LED 9 W', 10, '85.00')] },
  ],
  '33': [
    {
      type: 33, incomeType: '01', payment: { condition: '1' }, buyer: constructora,
      reference: { modifiedNcf: 'E31', modificationCode: '3' },
      lines: [line('Ajuste de precio del cemento', 1, '200.00')],
    },
  ],
  '34': [
    {
      type: 34, incomeType: '01', payment: { condition: '1' }, buyer: constructora,
      reference: { modifiedNcf: 'E31', modificationCode: '3' },
      lines: [line('Devolución de 2 sacos de cemento', 2, '350.00')],
    },
    {
      type: 34, incomeType: '01', payment: { condition: '1' }, buyer: distribuidora,
      reference: { modifiedNcf: 'E31', modificationCode: '3' },
      lines: [line('Devolución de 1 galón de pintura', 1, '1250.00')],
    },
  ],
  '41': [
    { type: 41, payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Finca El Ñame' }, lines: [line('Compra de yuca (qq)', 100, '25.00', { retention: { agent: '1', itbisWithheld: '0.00', isrWithheld: '50.00' } })] },
    { type: 41, payment: { condition: '1' }, buyer: { rnc: '101010632', name: 'Cosecha Verde SRL' }, lines: [line('Compra de plátanos (cientos)', 20, '900.00', { retention: { agent: '1', itbisWithheld: '0.00', isrWithheld: '360.00' } })] },
  ],
  '43': [
    { type: 43, lines: [line('Pasaje de autobús', 1, '150.00')] },
    { type: 43, lines: [line('Estacionamiento', 1, '100.00'), line('Peaje', 2, '60.00')] },
  ],
  '44': [
    { type: 44, incomeType: '01', payment: { condition: '1' }, buyer: constructora, lines: [line('Servicio a zona franca', 1, '5000.00', { kind: 'service' })] },
    { type: 44, incomeType: '01', payment: { condition: '1' }, buyer: distribuidora, lines: [line('Mantenimiento de equipos', 1, '12500.00', { kind: 'service' })] },
  ],
  '45': [
    { type: 45, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '401007551', name: 'Ministerio de Ejemplo' }, lines: [line('Materiales de oficina', 3, '1200.00')] },
    { type: 45, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '401007551', name: 'Ministerio de Ejemplo' }, lines: [line('Sillas de oficina', 4, '3800.00')] },
  ],
  '46': [
    { type: 46, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Export Buyer SRL' }, lines: [line('Cacao en grano (kg)', 1000, '180.00', { itbisRate: 0 })] },
    { type: 46, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '101010632', name: 'Caribbean Exports SRL' }, lines: [line('Café verde (kg)', 500, '320.00', { itbisRate: 0 })] },
  ],
  '47': [
    { type: 47, payment: { condition: '1' }, lines: [line('Licencia de software', 1, '50000.00', { kind: 'service', retention: { agent: '1', isrWithheld: '13500.00' } })] },
    { type: 47, payment: { condition: '1' }, lines: [line('Consultoría técnica remota', 1, '20000.00', { kind: 'service', retention: { agent: '1', isrWithheld: '5400.00' } })] },
  ],
};
