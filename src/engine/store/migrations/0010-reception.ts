import { sql, type Kysely } from 'kysely';

/**
 * Business-to-business reception (NOTES §10). `received_ecf` is the inbox:
 * every e-CF another issuer sent to a tenant, with the raw bytes as they
 * arrived and the signed ARECF we answered, whether it was received or not.
 * `received_ecf_approvals` is the tenant's own commercial decision (the
 * outgoing ACECF) with the state of its two deliveries, one row per received
 * e-CF. `inbound_approvals` records the ACECF external buyers send over the
 * tenant's own e-CF.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('received_ecf')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason_code', 'integer')
    .addColumn('reason', 'text')
    .addColumn('issuer_rnc', 'text', (c) => c.notNull())
    .addColumn('issuer_name', 'text')
    .addColumn('buyer_rnc', 'text')
    .addColumn('encf', 'text', (c) => c.notNull())
    .addColumn('type', 'integer')
    .addColumn('issue_date', 'text')
    .addColumn('monto_total', 'text')
    .addColumn('security_code', 'text')
    .addColumn('file_name', 'text')
    .addColumn('xml', 'blob', (c) => c.notNull())
    .addColumn('xml_sha256', 'text', (c) => c.notNull())
    .addColumn('arecf_xml', 'blob', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  // The same bytes sent again are the same reception.
  await db.schema.createIndex('received_ecf_bytes').on('received_ecf').columns(['tenant_id', 'xml_sha256']).unique().execute();
  // One received document per issuer and e-NCF; refusals may repeat.
  await db.schema
    .createIndex('received_ecf_once')
    .on('received_ecf')
    .columns(['tenant_id', 'issuer_rnc', 'encf'])
    .unique()
    .where(sql<boolean>`status = 'received'`)
    .execute();
  await db.schema.createIndex('received_ecf_inbox').on('received_ecf').columns(['tenant_id', 'received_at', 'id']).execute();

  await db.schema
    .createTable('received_ecf_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('received_ecf_id', 'text', (c) => c.notNull().unique().references('received_ecf.id'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('rejection_reason', 'text')
    .addColumn('xml', 'blob', (c) => c.notNull())
    .addColumn('xml_sha256', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text', (c) => c.notNull())
    .addColumn('issuer_delivery', 'text', (c) => c.notNull())
    .addColumn('taxauth_delivery', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('inbound_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('ecf_id', 'text', (c) => c.notNull().references('ecf.id'))
    .addColumn('encf', 'text', (c) => c.notNull())
    .addColumn('buyer_rnc', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('rejection_reason', 'text')
    .addColumn('approved_at_text', 'text', (c) => c.notNull())
    .addColumn('xml', 'blob', (c) => c.notNull())
    .addColumn('xml_sha256', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  // A buyer's decision over one e-CF is recorded once.
  await db.schema.createIndex('inbound_approvals_once').on('inbound_approvals').columns(['tenant_id', 'ecf_id']).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('inbound_approvals').execute();
  await db.schema.dropTable('received_ecf_approvals').execute();
  await db.schema.dropTable('received_ecf').execute();
}
