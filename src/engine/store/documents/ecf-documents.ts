import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { DocumentStore } from './document-store.js';

/**
 * Reading an issued e-CF's documents (ecf_documents). The XML's digest is
 * the row's own (migration 0017) or, for rows stored before it,
 * ecf.document_hash (hex SHA-256 of the same bytes); an old RFCE has none.
 */
export interface EcfDocumentRow {
  readonly id: string;
  readonly encf: string;
  readonly document_hash: string;
  readonly xml: Buffer;
  readonly xml_sha256: Buffer | null;
}

export interface RfceDocumentRow {
  readonly id: string;
  readonly encf: string;
  readonly rfce_xml: Buffer | null;
  readonly rfce_sha256: Buffer | null;
}

export const readEcfXml = (documents: DocumentStore, db: Kysely<Database>, row: EcfDocumentRow): Promise<Buffer> =>
  documents.read(db, row.xml, row.xml_sha256 ?? row.document_hash, { table: 'ecf_documents', column: 'xml', id: row.id, encf: row.encf });

/** null when the e-CF has no RFCE. */
export const readRfceXml = async (documents: DocumentStore, db: Kysely<Database>, row: RfceDocumentRow): Promise<Buffer | null> =>
  row.rfce_xml === null ? null : documents.read(db, row.rfce_xml, row.rfce_sha256, { table: 'ecf_documents', column: 'rfce_xml', id: row.id, encf: row.encf });
