import { sql, type Kysely } from 'kysely';

/**
 * Authorized e-NCF ranges and issued e-CF. The list-facing columns live in
 * `ecf`; the signed bytes in `ecf_documents`, so listing a million rows never
 * reads a document. Amounts are also kept in cents for filtering and sorting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sequence_ranges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('series', 'text', (c) => c.notNull())
    .addColumn('range_from', 'integer', (c) => c.notNull())
    .addColumn('range_to', 'integer', (c) => c.notNull())
    .addColumn('next', 'integer', (c) => c.notNull())
    .addColumn('expires_on', 'text')
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sequence_ranges_lookup').on('sequence_ranges').columns(['tenant_id', 'environment', 'type', 'range_from']).execute();

  await db.schema
    .createTable('ecf')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('encf', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('sequence_expires_on', 'text')
    .addColumn('issue_date', 'text', (c) => c.notNull())
    .addColumn('issued_at', 'text', (c) => c.notNull())
    .addColumn('signed_at', 'text', (c) => c.notNull())
    .addColumn('security_code', 'text', (c) => c.notNull())
    .addColumn('qr_url', 'text', (c) => c.notNull())
    .addColumn('submits_rfce', 'integer', (c) => c.notNull())
    .addColumn('internal_number', 'text')
    .addColumn('tolerance_warning', 'text')
    .addColumn('signed_during_contingency', 'integer', (c) => c.notNull())
    .addColumn('monto_total', 'text', (c) => c.notNull())
    .addColumn('monto_total_cents', 'integer', (c) => c.notNull())
    .addColumn('buyer_rnc', 'text')
    .addColumn('buyer_name', 'text')
    .addColumn('document_hash', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('sequence_range_id', 'text', (c) => c.references('sequence_ranges.id'))
    .addColumn('taxauth', 'text')
    .addColumn('retry', 'text')
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('ecf_tenant_encf').on('ecf').columns(['tenant_id', 'environment', 'encf']).unique().execute();
  await db.schema.createIndex('ecf_tenant_idempotency').on('ecf').columns(['tenant_id', 'idempotency_key']).unique().execute();
  await db.schema
    .createIndex('ecf_tenant_internal_number')
    .on('ecf')
    .columns(['tenant_id', 'internal_number'])
    .unique()
    .where(sql.ref('internal_number'), 'is not', null)
    .execute();
  for (const [name, columns] of [
    ['ecf_list_issued', ['tenant_id', 'issued_at']],
    ['ecf_list_amount', ['tenant_id', 'monto_total_cents']],
    ['ecf_list_type', ['tenant_id', 'type', 'issued_at']],
    ['ecf_list_status', ['tenant_id', 'status', 'issued_at']],
    ['ecf_list_environment', ['tenant_id', 'environment', 'issued_at']],
    ['ecf_search_buyer_rnc', ['tenant_id', 'buyer_rnc']],
    ['ecf_search_buyer_name', ['tenant_id', 'buyer_name']],
    ['ecf_fingerprint', ['tenant_id', 'fingerprint', 'issued_at']],
  ] as const) {
    await db.schema.createIndex(name).on('ecf').columns([...columns]).execute();
  }

  await db.schema
    .createTable('ecf_documents')
    .addColumn('ecf_id', 'text', (c) => c.primaryKey().references('ecf.id'))
    .addColumn('xml', 'blob', (c) => c.notNull())
    .addColumn('rfce_xml', 'blob')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ecf_documents').execute();
  await db.schema.dropTable('ecf').execute();
  await db.schema.dropTable('sequence_ranges').execute();
}
