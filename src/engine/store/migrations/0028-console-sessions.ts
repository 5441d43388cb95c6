import type { Kysely } from 'kysely';

/**
 * Sessions of the web console (issue 36; engine/console-sessions). One row
 * per signed-in browser: the SHA-256 of the random token its cookie holds
 * (never the token), the API key it signed in with (a revoked key ends the
 * session), the CSRF token its forms carry, and three instants: created,
 * last seen (idle expiry, slid at most once a minute) and the absolute
 * expiry. Short-lived and neither copied nor backed up (copy-store.ts); the
 * store-clean job removes expired rows.
 *
 * No foreign keys, as for the receiver's tokens (0015): the engine checks the
 * key on every lookup.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('csrf', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  // The store-clean job takes rows by either expiry.
  await db.schema.createIndex('console_sessions_expiry').on('console_sessions').columns(['expires_at']).execute();
  await db.schema.createIndex('console_sessions_seen').on('console_sessions').columns(['seen_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_sessions').execute();
}
