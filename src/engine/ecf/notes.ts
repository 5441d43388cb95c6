import type { Engine } from '../engine.js';
import { readEcfXml } from '../store/documents/index.js';
import { tenantKey } from '../tenants/lookup.js';
import { getEcf } from './queries.js';
import { summaryView, SUMMARY_COLUMNS, type EcfSummary } from './views.js';

/**
 * Notes looked at per e-CF: the store keeps no column of the e-NCF a note
 * modifies, so the candidates (the tenant's notes in the same environment,
 * to the same buyer, issued since) are read from their signed XML, the
 * newest this many.
 */
export const NOTE_CANDIDATES = 200;

/**
 * The debit and credit notes (types 33 and 34) of the tenant that modify
 * the e-CF `id` (their signed XML's NCFModificado is its e-NCF), oldest
 * first. NotFound for another tenant's id.
 */
export async function notesModifying(engine: Engine, tenantId: string, id: string): Promise<EcfSummary[]> {
  const ecf = await getEcf(engine, tenantId, id);
  const key = await tenantKey(engine.db, tenantId);
  let query = engine.db
    .selectFrom('ecf')
    .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
    .select(SUMMARY_COLUMNS.map((c) => `ecf.${c}` as const))
    .select(['ecf.document_hash', 'ecf_documents.xml', 'ecf_documents.xml_sha256'])
    .where('ecf.tenant_key', '=', key)
    .where('ecf.type', 'in', [33, 34])
    .where('ecf.environment', '=', ecf.environment)
    .where('ecf.issue_date', '>=', ecf.issueDate)
    .where('ecf.id', '!=', ecf.id);
  if (ecf.buyerRnc) query = query.where('ecf.buyer_rnc', '=', ecf.buyerRnc);
  const rows = await query.orderBy('ecf.issued_at', 'desc').limit(NOTE_CANDIDATES).execute();
  const marker = Buffer.from(`<NCFModificado>${ecf.encf}</NCFModificado>`);
  const notes: EcfSummary[] = [];
  for (const row of rows.reverse()) {
    const xml = await readEcfXml(engine.documents, engine.db, row);
    if (xml.includes(marker)) notes.push(summaryView(row));
  }
  return notes;
}
