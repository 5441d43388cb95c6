import type { Element } from '@xmldom/xmldom';
import type { Engine } from '../engine-types.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { parseXml, textOf } from '../signing/verify.js';
import { readReceivedXml } from './stored.js';

export interface ReceivedLine {
  readonly number: number;
  readonly name: string | null;
  readonly quantity: string | null;
  readonly unitPrice: string | null;
  readonly discount: string | null;
  readonly amount: string | null;
}

/** What a person reads of a received e-CF beyond its summary: the lines and the totals, as the issuer wrote them. */
export interface ReceivedContent {
  readonly lines: readonly ReceivedLine[];
  readonly totals: {
    readonly montoGravadoTotal: string | null;
    readonly montoExento: string | null;
    readonly totalItbis: string | null;
    readonly montoTotal: string | null;
  };
}

const child = (item: Element, name: string): string | null => {
  const found = item.getElementsByTagName(name)[0];
  return found?.textContent?.trim() || null;
};

/**
 * The lines and totals of a received e-CF, read from its bytes as they
 * arrived. A document not well-formed (received as not_received) has none:
 * empty lines and null totals, never an error.
 */
export async function receivedEcfContent(engine: Engine, tenantId: string, id: string): Promise<ReceivedContent> {
  const row = isUuid(id)
    ? await engine.db.selectFrom('received_ecf').select(['id', 'encf', 'xml', 'xml_sha256']).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()
    : undefined;
  if (!row) throw notFound('ReceivedEcf');
  const parsed = parseXml((await readReceivedXml(engine, row)).toString('utf8').replace(/^\uFEFF/, ''));
  if (!parsed.ok) return { lines: [], totals: { montoGravadoTotal: null, montoExento: null, totalItbis: null, montoTotal: null } };
  const items = Array.from(parsed.root.getElementsByTagName('Item'));
  return {
    lines: items.map((item, i) => ({
      number: Number(child(item, 'NumeroLinea') ?? i + 1),
      name: child(item, 'NombreItem'),
      quantity: child(item, 'CantidadItem'),
      unitPrice: child(item, 'PrecioUnitarioItem'),
      discount: child(item, 'DescuentoMonto'),
      amount: child(item, 'MontoItem'),
    })),
    totals: {
      montoGravadoTotal: textOf(parsed.root, 'MontoGravadoTotal'),
      montoExento: textOf(parsed.root, 'MontoExento'),
      totalItbis: textOf(parsed.root, 'TotalITBIS'),
      montoTotal: textOf(parsed.root, 'MontoTotal'),
    },
  };
}
