import { sql, type Kysely } from 'kysely';

/**
 * `ecf.modifies_encf`: the e-NCF a debit or credit note (types 33 and 34)
 * modifies, its InformacionReferencia/NCFModificado, unless the reference
 * names another taxpayer (RNCOtroContribuyente) whose e-NCF it is; null on
 * every other e-CF. Before it, the notes that modify an e-CF were found by
 * reading the candidates' signed XML, seconds a page on a store of millions
 * (the console's e-CF detail). The partial index holds only the notes, so an
 * invoice pays one header byte in its row and nothing in the index.
 *
 * The notes already stored are filled from their signed XML, which only the
 * engine's document store reads (compressed since 0017): this migration
 * leaves a cursor in platform_state, and the engine fills them when it opens
 * (ecf/notes.ts fillNoteReferences), resuming where a stop left it.
 */
export const FILL_KEY = 'store.fill.note_references';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ecf').addColumn('modifies_encf', 'text').execute();
  await db.schema
    .createIndex('ecf_modifies')
    .on('ecf')
    .columns(['tenant_key', 'modifies_encf'])
    .where(sql.ref('modifies_encf'), 'is not', null)
    .execute();
  // Only a store holding notes gets the cursor: a new store stays empty, as a restore's target must be.
  await sql`insert into platform_state (key, value, updated_at)
    select ${FILL_KEY}, ${JSON.stringify({ after: 0 })}, ${new Date().toISOString()} where exists (select 1 from ecf where type in (33, 34))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from platform_state where key = ${FILL_KEY}`.execute(db);
  await db.schema.dropIndex('ecf_modifies').execute();
  await db.schema.alterTable('ecf').dropColumn('modifies_encf').execute();
}
