import type { Kysely } from 'kysely';

/**
 * Compressed documents (docs/store.md, "Compressed documents"). The signer's
 * certificate text is kept once in document_certificates and cut out of every
 * stored document that carries it; each blob refers to its row by id.
 *
 * Digest columns (raw SHA-256, 32 bytes) for the documents that had none kept
 * beside them. Existing rows are not converted here: their new digest is null
 * and their raw bytes read as before (ecf.document_hash still checks the
 * e-CF's XML; the hex xml_sha256 columns of annulments, received_ecf,
 * received_ecf_approvals and inbound_approvals check theirs).
 */
const DIGESTS: readonly (readonly [table: string, column: string])[] = [
  ['ecf_documents', 'xml_sha256'],
  ['ecf_documents', 'rfce_sha256'],
  ['received_ecf', 'arecf_sha256'],
  ['certification_cases', 'xml_sha256'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('document_certificates')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('sha256', 'blob', (c) => c.notNull().unique())
    .addColumn('certificate', 'blob', (c) => c.notNull())
    .execute();
  for (const [table, column] of DIGESTS) await db.schema.alterTable(table).addColumn(column, 'blob').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [table, column] of [...DIGESTS].reverse()) await db.schema.alterTable(table).dropColumn(column).execute();
  await db.schema.dropTable('document_certificates').execute();
}
