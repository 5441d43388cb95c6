import type { Kysely } from 'kysely';

/**
 * The B2B receiver's seeds and bearer tokens (reception/receiver-auth.ts)
 * move from one process's memory into the store, so any node answers any
 * step of a caller's authentication and a load balancer needs no sticky
 * sessions. Only SHA-256 hashes of the seed values and tokens are kept.
 * A seed is spent by deleting its row. Both tables are short-lived: rows
 * expire within minutes (seeds) or an hour (tokens), are purged lazily, and
 * are neither copied nor backed up (copy-store.ts).
 *
 * No foreign key to tenants: the engine checks the tenant before every
 * insert and lookup, and a reference from throwaway rows would only stand in
 * the way of whatever replaces a store's tenants wholesale (restore).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['reception_seeds', 'reception_tokens']) {
    await db.schema
      .createTable(table)
      .addColumn('value_hash', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // The lazy purge takes expired rows in expiry order; the cap per tenant drops a tenant's oldest.
    await db.schema.createIndex(`${table}_expiry`).on(table).columns(['expires_at']).execute();
    await db.schema.createIndex(`${table}_tenant`).on(table).columns(['tenant_id', 'expires_at']).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reception_tokens').execute();
  await db.schema.dropTable('reception_seeds').execute();
}
