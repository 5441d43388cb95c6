import type { Kysely } from 'kysely';

/** One row per submission cycle of an e-CF, and the platform's own state (contingency). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ecf_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('ecf_id', 'text', (c) => c.notNull().references('ecf.id'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('track_id', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('status_text', 'text')
    .addColumn('sequence_used', 'integer')
    .addColumn('messages', 'text', (c) => c.notNull())
    .addColumn('retry_decision', 'text')
    .addColumn('xml_sha256', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ecf_attempts_number', ['ecf_id', 'attempt'])
    .execute();

  await db.schema
    .createTable('platform_state')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('platform_state').execute();
  await db.schema.dropTable('ecf_attempts').execute();
}
