import { sql, type Kysely } from 'kysely';

/** Organizations, tenants, profiles, API keys, settings, the event outbox and the work table. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('max_tenants', 'integer', (c) => c.notNull())
    .addColumn('monthly_ecf_quota', 'integer', (c) => c.notNull())
    .addColumn('max_members', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();

  await db.schema
    .createTable('organization_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('organization_members_org')
    .on('organization_members')
    .column('organization_id')
    .execute();

  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id'))
    .addColumn('rnc', 'text', (c) => c.notNull())
    .addColumn('legal_name', 'text', (c) => c.notNull())
    .addColumn('trade_name', 'text')
    .addColumn('default_environment', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  // One RNC per organization (tenants outside any organization count as one group).
  await db.schema
    .createIndex('tenants_org_rnc')
    .on('tenants')
    .expression(sql`coalesce(organization_id, ''), rnc`)
    .unique()
    .execute();

  await db.schema
    .createTable('emitter_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().unique().references('tenants.id'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('municipality', 'text')
    .addColumn('province', 'text')
    .addColumn('phones', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('economic_activity', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id'))
    .addColumn('member_id', 'text', (c) => c.references('organization_members.id'))
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .addCheckConstraint(
      'api_keys_one_owner',
      sql`(tenant_id is null) <> (organization_id is null)`,
    )
    .execute();

  // scope is 'platform' or a tenant id.
  await db.schema
    .createTable('settings')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('settings_pk', ['scope', 'key'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('api_version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    // A fact that must be told once (a notice threshold, say) names itself here.
    .addColumn('fact_key', 'text', (c) => c.unique())
    .execute();
  await db.schema.createIndex('events_tenant').on('events').columns(['tenant_id', 'seq']).execute();

  await db.schema
    .createTable('work')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
    .addColumn('ref', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('work_kind_due').on('work').columns(['kind', 'due_at']).execute();
  // At most one pending item per (kind, ref): enqueueing the same job twice is a no-op.
  await db.schema.createIndex('work_kind_ref').on('work').columns(['kind', 'ref']).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'work',
    'events',
    'settings',
    'api_keys',
    'emitter_profiles',
    'tenants',
    'organization_members',
    'organizations',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
