import type { Kysely } from 'kysely';

/**
 * DGII's certification of a tenant as an electronic issuer
 * (CERTIFICATION.md): one row per tenant with the state of each of the 14
 * Pasos, and one row per test case the tenant sends (the Paso 2 and Paso 3
 * workbooks' rows), with the row's cells as written, the signed bytes once
 * prepared, and the authority's verdict. A case's state moves only forward
 * within a generation; a new workbook after a reset starts a new generation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('certifications')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('pasos', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('certification_cases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('paso', 'integer', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('sheet', 'text', (c) => c.notNull())
    .addColumn('row_number', 'integer', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('encf', 'text', (c) => c.notNull())
    .addColumn('modifies_encf', 'text')
    .addColumn('cells', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('xml', 'blob')
    .addColumn('security_code', 'text')
    .addColumn('track_id', 'text')
    .addColumn('messages', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('verdict_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('certification_cases_row')
    .on('certification_cases')
    .columns(['tenant_id', 'paso', 'generation', 'sheet', 'row_number'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('certification_cases').execute();
  await db.schema.dropTable('certifications').execute();
}
