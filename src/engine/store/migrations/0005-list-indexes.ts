import type { Kysely } from 'kysely';

/**
 * Measured on a million e-CF: the list's `id` tie-break made deep pages sort
 * in a temporary b-tree, and a search by e-NCF without an environment could
 * not seek. The list indexes now end in `id`, and e-NCF has its own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ecf_list_issued').execute();
  await db.schema.dropIndex('ecf_list_amount').execute();
  await db.schema.createIndex('ecf_list_issued_id').on('ecf').columns(['tenant_id', 'issued_at', 'id']).execute();
  await db.schema.createIndex('ecf_list_amount_id').on('ecf').columns(['tenant_id', 'monto_total_cents', 'id']).execute();
  await db.schema.createIndex('ecf_search_encf').on('ecf').columns(['tenant_id', 'encf']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ecf_search_encf').execute();
  await db.schema.dropIndex('ecf_list_amount_id').execute();
  await db.schema.dropIndex('ecf_list_issued_id').execute();
  await db.schema.createIndex('ecf_list_amount').on('ecf').columns(['tenant_id', 'monto_total_cents']).execute();
  await db.schema.createIndex('ecf_list_issued').on('ecf').columns(['tenant_id', 'issued_at']).execute();
}
