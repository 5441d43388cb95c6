import type { Kysely } from 'kysely';
import type { Engine } from '../engine-types.js';
import type { Database } from '../store/schema.js';

/**
 * The reception side's stored documents, read through the engine's document
 * store: decompressed and checked against the digest their row keeps (hex
 * xml_sha256 columns; the ARECF's raw arecf_sha256 of migration 0017, null in
 * older rows). A damaged one is DocumentDamaged, never other bytes.
 */
export const readArecf = (engine: Engine, row: { id: string; encf: string; arecf_xml: Buffer; arecf_sha256: Buffer | null }, db: Kysely<Database> = engine.db): Promise<Buffer> =>
  engine.documents.read(db, row.arecf_xml, row.arecf_sha256, { table: 'received_ecf', column: 'arecf_xml', id: row.id, encf: row.encf });

/** The ACECF this tenant signed over a received e-CF. */
export const readDecidedAcecf = (engine: Engine, row: { id: string; xml: Buffer; xml_sha256: string }, encf: string | null): Promise<Buffer> =>
  engine.documents.read(engine.db, row.xml, row.xml_sha256, { table: 'received_ecf_approvals', id: row.id, encf });

/** The bytes of a received e-CF as they arrived. */
export const readReceivedXml = (engine: Engine, row: { id: string; encf: string; xml: Buffer; xml_sha256: string }): Promise<Buffer> =>
  engine.documents.read(engine.db, row.xml, row.xml_sha256, { table: 'received_ecf', id: row.id, encf: row.encf });

/** An ACECF an external buyer sent, as it arrived. */
export const readInboundAcecf = (engine: Engine, row: { id: string; encf: string; xml: Buffer; xml_sha256: string }): Promise<Buffer> =>
  engine.documents.read(engine.db, row.xml, row.xml_sha256, { table: 'inbound_approvals', id: row.id, encf: row.encf });
