import type { EcfType } from './payload.js';

/** Taxpayer-facing names of the e-CF types, as the authority titles them. */
export const TYPE_NAMES: Readonly<Record<EcfType, string>> = {
  31: 'Factura de Crédito Fiscal Electrónica',
  32: 'Factura de Consumo Electrónica',
  33: 'Nota de Débito Electrónica',
  34: 'Nota de Crédito Electrónica',
  41: 'Comprobante Electrónico de Compras',
  43: 'Comprobante Electrónico para Gastos Menores',
  44: 'Comprobante Electrónico para Regímenes Especiales',
  45: 'Comprobante Electrónico Gubernamental',
  46: 'Comprobante Electrónico para Exportaciones',
  47: 'Comprobante Electrónico para Pagos al Exterior',
};
