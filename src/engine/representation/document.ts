import type { Engine } from '../engine-types.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { readEcfXml } from '../store/documents/index.js';
import { tenantKey } from '../tenants/lookup.js';
import { readSignedEcf, type PrintedEcf } from './reader.js';

/**
 * One of the tenant's e-CF as a person reads it (issuer, buyer, lines,
 * totals, taxes, reference), read from its stored signed XML as the printed
 * representation is (NOTES §17.11): the document's own text, nothing
 * recomputed from database values. NotFound for another tenant's id.
 */
export async function ecfDocument(engine: Engine, tenantId: string, id: string): Promise<PrintedEcf> {
  const row = isUuid(id)
    ? await engine.db
        .selectFrom('ecf')
        .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
        .select(['ecf.id', 'ecf.encf', 'ecf.document_hash', 'ecf_documents.xml', 'ecf_documents.xml_sha256'])
        .where('ecf.tenant_key', '=', await tenantKey(engine.db, tenantId))
        .where('ecf.id', '=', id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound('Ecf');
  return readSignedEcf(await readEcfXml(engine.documents, engine.db, row));
}
