import type { Kysely } from 'kysely';

/**
 * Sequence annulments (ANECF). `annulments` holds each request with its
 * signed document; `annulment_lines` its ranges, which are the discarded
 * numbers the allocator skips. `sequence_ranges.annulled_ahead` counts the
 * discarded numbers still above a range's pointer, so an allocation looks the
 * lines up only when there are some to skip.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sequence_ranges')
    .addColumn('annulled_ahead', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('annulments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total_count', 'integer', (c) => c.notNull())
    .addColumn('xml', 'blob', (c) => c.notNull())
    .addColumn('xml_sha256', 'text', (c) => c.notNull())
    .addColumn('taxauth_code', 'text')
    .addColumn('taxauth_messages', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('sending_until', 'text')
    .addColumn('submitted_at', 'text')
    .addColumn('voided_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('annulments_list').on('annulments').columns(['tenant_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('annulment_lines')
    .addColumn('annulment_id', 'text', (c) => c.notNull().references('annulments.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('range_id', 'text', (c) => c.notNull().references('sequence_ranges.id'))
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('series', 'text', (c) => c.notNull())
    .addColumn('range_from', 'integer', (c) => c.notNull())
    .addColumn('range_to', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('annulment_lines_pk', ['annulment_id', 'position'])
    .execute();
  await db.schema.createIndex('annulment_lines_range').on('annulment_lines').columns(['range_id', 'range_from']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('annulment_lines').execute();
  await db.schema.dropTable('annulments').execute();
  await db.schema.alterTable('sequence_ranges').dropColumn('annulled_ahead').execute();
}
