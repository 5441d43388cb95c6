import type { Engine } from '../engine.js';
import { ecfXml } from '../ecf/queries.js';
import { readSignedEcf, type PrintedEcf } from './reader.js';

/**
 * One of the tenant's e-CF as a person reads it (issuer, buyer, lines,
 * totals, taxes, reference), read from its stored signed XML as the printed
 * representation is (NOTES §17.11): the document's own text, nothing
 * recomputed from database values. NotFound for another tenant's id.
 */
export async function ecfDocument(engine: Engine, tenantId: string, id: string): Promise<PrintedEcf> {
  const { bytes } = await ecfXml(engine, tenantId, id);
  return readSignedEcf(bytes);
}
