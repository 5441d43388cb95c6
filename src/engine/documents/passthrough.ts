import { SCHEMA_TREES, type SchemaNode } from '../xml/schema-trees.generated.js';
import type { EcfType } from './payload.js';

/**
 * The informative blocks a client passes through (subtotals and pagination):
 * which element each payload field becomes (the same names ecf-xml.ts
 * writes), and whether the type's official XSD has that element at all. The
 * types differ (a 46 has no exempt subtotal, a 47 no gravado one), so a field
 * without an element is refused by validation instead of failing the schema.
 */

export const SUBTOTAL_ELEMENTS: Readonly<Record<string, readonly string[]>> = {
  number: ['NumeroSubTotal'],
  description: ['DescripcionSubtotal'],
  order: ['Orden'],
  montoGravadoTotal: ['SubTotalMontoGravadoTotal'],
  montoGravadoI1: ['SubTotalMontoGravadoI1'],
  montoGravadoI2: ['SubTotalMontoGravadoI2'],
  montoGravadoI3: ['SubTotalMontoGravadoI3'],
  totalItbis: ['SubTotaITBIS'],
  itbis1: ['SubTotaITBIS1'],
  itbis2: ['SubTotaITBIS2'],
  itbis3: ['SubTotaITBIS3'],
  montoImpuestoAdicional: ['SubTotalImpuestoAdicional'],
  montoExento: ['SubTotalExento'],
  amount: ['MontoSubTotal'],
  lines: ['Lineas'],
};

export const PAGE_ELEMENTS: Readonly<Record<string, readonly string[]>> = {
  number: ['PaginaNo'],
  lineFrom: ['NoLineaDesde'],
  lineTo: ['NoLineaHasta'],
  montoGravadoTotal: ['SubtotalMontoGravadoPagina'],
  montoGravadoI1: ['SubtotalMontoGravado1Pagina'],
  montoGravadoI2: ['SubtotalMontoGravado2Pagina'],
  montoGravadoI3: ['SubtotalMontoGravado3Pagina'],
  montoExento: ['SubtotalExentoPagina'],
  totalItbis: ['SubtotalItbisPagina'],
  itbis1: ['SubtotalItbis1Pagina'],
  itbis2: ['SubtotalItbis2Pagina'],
  itbis3: ['SubtotalItbis3Pagina'],
  montoImpuestoAdicional: ['SubtotalImpuestoAdicionalPagina'],
  iscEspecifico: ['SubtotalImpuestoAdicional', 'SubtotalImpuestoSelectivoConsumoEspecificoPagina'],
  otrosImpuestos: ['SubtotalImpuestoAdicional', 'SubtotalOtrosImpuesto'],
  amount: ['MontoSubtotalPagina'],
  nonInvoiceableAmount: ['SubtotalMontoNoFacturablePagina'],
};

/** Page fields whose XSD type is "greater than zero" (Decimal18D1or2ValidationTypeMayorCero). */
export const PAGE_POSITIVE: ReadonlySet<string> = new Set(['montoImpuestoAdicional', 'iscEspecifico', 'otrosImpuestos']);

const find = (nodes: readonly SchemaNode[] | undefined, path: readonly string[]): SchemaNode | undefined => {
  const [head, ...rest] = path;
  const node = nodes?.find((n) => n.name === head);
  return !node || rest.length === 0 ? node : find(node.children, rest);
};

/** Whether the type's e-CF schema has the element at this path under the root. */
export const hasElement = (type: EcfType, path: readonly string[]): boolean => find(SCHEMA_TREES[`ecf${type}`].children, path) !== undefined;
