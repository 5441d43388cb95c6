import type { Kysely } from 'kysely';

/**
 * Measured on a million e-CF: a short search prefix (an e-NCF's first nine
 * characters matches ten thousand e-CF per environment) read every match
 * from the table to sort it, seconds with a cold cache. The search indexes
 * now also hold what the list sorts by (issue instant, amount, id), so a
 * search sorts and counts from the indexes alone and reads only the page it
 * returns. The internal number keeps its unique index: its matches are few.
 */
const SEARCHED = [
  ['ecf_search_encf', 'encf'],
  ['ecf_search_buyer_rnc', 'buyer_rnc'],
  ['ecf_search_buyer_name_key', 'buyer_name_key'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, column] of SEARCHED) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(`${name}_sorted`).on('ecf').columns(['tenant_id', column, 'issued_at', 'monto_total_cents', 'id']).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, column] of SEARCHED) {
    await db.schema.dropIndex(`${name}_sorted`).execute();
    await db.schema.createIndex(name).on('ecf').columns(['tenant_id', column]).execute();
  }
}
