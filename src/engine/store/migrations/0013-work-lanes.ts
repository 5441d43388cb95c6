import { sql, type Kysely } from 'kysely';

/**
 * Work is claimed lane by lane, round-robin, so one tenant's backlog never
 * holds up another's next e-CF, and a backlog of sends never holds up the
 * status queries of e-CF already sent. A lane is `group|tenant|class`
 * (work/lanes.ts); the group is what a concurrency bound applies to (one
 * authority environment, the office's receivers). Existing submission work
 * is put in its lane here; other kinds without one share the null lane.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('work').addColumn('lane', 'text').execute();
  await sql`
    update work set lane = 'taxauth:' || (select environment from ecf where ecf.id = work.ref) || '|' || work.tenant_id || '|'
      || (case when work.payload like '%"phase":"poll"%' then 'poll' else 'send' end)
    where kind = 'ecf.submit' and exists (select 1 from ecf where ecf.id = work.ref)
  `.execute(db);
  await db.schema.createIndex('work_lane_due').on('work').columns(['lane', 'due_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('work_lane_due').execute();
  await db.schema.alterTable('work').dropColumn('lane').execute();
}
