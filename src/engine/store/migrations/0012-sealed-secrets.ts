import type { Kysely } from 'kysely';

/**
 * Sealed secrets of the encrypted store when several machines share one
 * PostgreSQL database: each node holds the same key (ECF_SECRET_KEY or a
 * mounted key file), and the sealed bytes live here instead of in one
 * node's data directory. Only ciphertext: the key never enters the database.
 * On SQLite the sealed files stay in the data directory and this table stays empty.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sealed_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sealed_secrets').execute();
}
