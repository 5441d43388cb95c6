import { sql, type Kysely } from 'kysely';
import { createRowTrigger, dominicanMonth, dropRowTrigger, withoutRowid } from './ddl.js';

/**
 * Tenant limits and alerts.
 *
 * - `emission_pauses`: one pause per tenant or organization (`scope`,
 *   `subject_id`). A pause whose `until` has passed has ended by itself; the
 *   row stays until the next pause or resume replaces it.
 * - `ecf_monthly_counts`: e-CF per tenant, environment and Dominican month
 *   (`yyyy-MM`), kept by triggers on `ecf` like `ecf_counts`, so the monthly
 *   cap and the organization's quota never count rows.
 * - `tenant_alert_state`: when each tenant was last told of a rejection spike
 *   (the 6-hour repeat interval).
 * - `organization_usage`: per organization and billing period, the peak
 *   tenant and member counts and when the period was closed.
 * - `ecf_attempts_recorded`: the rejection-spike window reads the last hour's
 *   verdicts of every tenant in one range scan.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('emission_pauses')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('until', 'text')
    .addColumn('set_by', 'text', (c) => c.notNull())
    .addColumn('changed_by', 'text', (c) => c.notNull())
    .addColumn('paused_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('emission_pauses_pk', ['scope', 'subject_id'])
    .execute();

  await withoutRowid(
    db,
    db.schema
      .createTable('ecf_monthly_counts')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('ecf_monthly_counts_pk', ['tenant_id', 'environment', 'period']),
  ).execute();
  await sql`insert into ecf_monthly_counts (tenant_id, environment, period, n)
    select tenant_id, environment, ${sql.raw(dominicanMonth(db, 'issued_at'))}, count(*) from ecf
    group by 1, 2, 3`.execute(db);
  const add = (row: 'new' | 'old', delta: 1 | -1) =>
    `insert into ecf_monthly_counts (tenant_id, environment, period, n)
      values (${row}.tenant_id, ${row}.environment, ${dominicanMonth(db, `${row}.issued_at`)}, ${delta})
      on conflict (tenant_id, environment, period) do update set n = ecf_monthly_counts.n + (${delta})`;
  await createRowTrigger(db, { name: 'ecf_monthly_counts_insert', table: 'ecf', on: 'insert', body: [add('new', 1)] });
  await createRowTrigger(db, { name: 'ecf_monthly_counts_delete', table: 'ecf', on: 'delete', body: [add('old', -1)] });
  await createRowTrigger(db, {
    name: 'ecf_monthly_counts_update',
    table: 'ecf',
    on: { update: ['tenant_id', 'environment', 'issued_at'] },
    body: [add('old', -1), add('new', 1)],
  });

  await db.schema
    .createTable('tenant_alert_state')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('spike_alerted_at', 'text')
    .execute();

  await db.schema
    .createTable('organization_usage')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('peak_tenants', 'integer', (c) => c.notNull())
    .addColumn('peak_members', 'integer', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .addPrimaryKeyConstraint('organization_usage_pk', ['organization_id', 'period'])
    .execute();

  await db.schema.createIndex('ecf_attempts_recorded').on('ecf_attempts').columns(['recorded_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ecf_attempts_recorded').execute();
  await db.schema.dropTable('organization_usage').execute();
  await db.schema.dropTable('tenant_alert_state').execute();
  for (const t of ['ecf_monthly_counts_insert', 'ecf_monthly_counts_delete', 'ecf_monthly_counts_update']) await dropRowTrigger(db, t, 'ecf');
  await db.schema.dropTable('ecf_monthly_counts').execute();
  await db.schema.dropTable('emission_pauses').execute();
}
