import type { Kysely } from 'kysely';

/** Certificates: what is public about each one. The .p12 and its password live in the secret store. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('certificates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('subject_cn', 'text')
    .addColumn('subject_serial_number', 'text')
    .addColumn('holder_id', 'text')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('serial_number', 'text', (c) => c.notNull())
    .addColumn('fingerprint_sha256', 'text', (c) => c.notNull())
    .addColumn('key_bits', 'integer', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    .addColumn('secret_store', 'text', (c) => c.notNull())
    .addColumn('secret_ref', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addUniqueConstraint('certificates_tenant_fingerprint', ['tenant_id', 'fingerprint_sha256'])
    .execute();
  await db.schema.createIndex('certificates_tenant_created').on('certificates').columns(['tenant_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('certificates').execute();
}
