import { createHash } from 'node:crypto';
import type { Engine } from '../../../../src/engine/engine-types.js';
import { documentStore, parseBlob } from '../../../../src/engine/store/documents/index.js';
import type { RawDocument } from './raw-store.js';

/** A document as it now lies in the store: its blob, the digest its row keeps, and the bytes it reads back as. */
export interface Stored {
  readonly blob: Buffer;
  readonly compressed: boolean;
  /** The raw digest column of migration 0017, where the row has one. */
  readonly sha256: Buffer | null;
  readonly read: Buffer | Error;
}

const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Each of the raw store's documents read straight from its table, written out here (not through the code under test). */
export async function storedDocuments(engine: Engine, documents: readonly RawDocument[]): Promise<Map<RawDocument, Stored>> {
  const reader = documentStore();
  const db = engine.db;
  const out = new Map<RawDocument, Stored>();
  for (const d of documents) {
    let blob: Buffer;
    let sha256: Buffer | null = null;
    let kept: Buffer | string | null;
    if (d.table === 'ecf_documents') {
      const r = await db.selectFrom('ecf_documents').innerJoin('ecf', 'ecf.store_key', 'ecf_documents.ecf_key').select(['xml', 'rfce_xml', 'xml_sha256', 'rfce_sha256', 'document_hash']).where('ecf.id', '=', d.id).executeTakeFirstOrThrow();
      blob = d.column === 'xml' ? r.xml : r.rfce_xml!;
      sha256 = d.column === 'xml' ? r.xml_sha256 : r.rfce_sha256;
      kept = sha256 ?? (d.column === 'xml' ? r.document_hash : null);
    } else if (d.table === 'received_ecf') {
      const r = await db.selectFrom('received_ecf').select(['xml', 'xml_sha256', 'arecf_xml', 'arecf_sha256']).where('id', '=', d.id).executeTakeFirstOrThrow();
      blob = d.column === 'xml' ? r.xml : r.arecf_xml;
      sha256 = d.column === 'xml' ? null : r.arecf_sha256;
      kept = d.column === 'xml' ? r.xml_sha256 : sha256;
    } else if (d.table === 'certification_cases') {
      const r = await db.selectFrom('certification_cases').select(['xml', 'xml_sha256']).where('id', '=', d.id).executeTakeFirstOrThrow();
      blob = r.xml!;
      sha256 = r.xml_sha256;
      kept = sha256;
    } else {
      const table = d.table as 'annulments' | 'received_ecf_approvals' | 'inbound_approvals';
      const r = await db.selectFrom(table).select(['xml', 'xml_sha256']).where('id', '=', d.id).executeTakeFirstOrThrow();
      blob = r.xml;
      kept = r.xml_sha256;
    }
    const read = await reader.read(db, blob, kept, { table: d.table, id: d.id, column: d.column }).catch((e: Error) => e);
    out.set(d, { blob, compressed: parseBlob(blob).kind === 'compressed', sha256, read });
  }
  return out;
}

export { hex };
