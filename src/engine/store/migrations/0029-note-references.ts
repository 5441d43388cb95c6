import { sql, type Kysely } from 'kysely';
import { documentStore, readEcfXml } from '../documents/index.js';
import type { Database } from '../schema.js';

/**
 * `ecf.modifies_encf`: the e-NCF a debit or credit note (types 33 and 34)
 * modifies, its InformacionReferencia/NCFModificado, unless the reference
 * names another taxpayer (RNCOtroContribuyente) whose e-NCF it is; null on
 * every other e-CF. Before it, the notes that modify an e-CF were found by reading the
 * candidates' signed XML, seconds a page on a store of millions (the
 * console's e-CF detail). The partial index holds only the notes, so an
 * invoice pays one header byte in its row and nothing in the index.
 *
 * Existing notes are filled from their signed XML, in batches by store key:
 * one pass over the e-CF, reading only the notes' documents.
 */
const BATCH = 500;
const REFERENCE = /<NCFModificado>([^<]*)<\/NCFModificado>/;
const OTHER_ISSUER = /<RNCOtroContribuyente>([^<]*)<\/RNCOtroContribuyente>/;
const ISSUER = /<RNCEmisor>([^<]*)<\/RNCEmisor>/;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ecf').addColumn('modifies_encf', 'text').execute();
  await fill(db as unknown as Kysely<Database>);
  await db.schema
    .createIndex('ecf_modifies')
    .on('ecf')
    .columns(['tenant_key', 'modifies_encf'])
    .where(sql.ref('modifies_encf'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ecf_modifies').execute();
  await db.schema.alterTable('ecf').dropColumn('modifies_encf').execute();
}

async function fill(db: Kysely<Database>): Promise<void> {
  const documents = documentStore();
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('ecf')
      .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
      .select(['ecf.store_key', 'ecf.id', 'ecf.encf', 'ecf.document_hash', 'ecf_documents.xml', 'ecf_documents.xml_sha256'])
      .where('ecf.store_key', '>', after)
      .where('ecf.type', 'in', [33, 34])
      .orderBy('ecf.store_key')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const xml = await readEcfXml(documents, db, row);
      const text = xml.toString('utf8');
      const modified = REFERENCE.exec(text)?.[1];
      const other = OTHER_ISSUER.exec(text)?.[1];
      if (modified && (!other || other === ISSUER.exec(text)?.[1])) await db.updateTable('ecf').set({ modifies_encf: modified }).where('store_key', '=', row.store_key).execute();
    }
    after = Number(rows[rows.length - 1]!.store_key);
  }
}
