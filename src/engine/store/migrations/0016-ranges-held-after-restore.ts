import type { Kysely } from 'kysely';

/**
 * A restored store may be behind the one its backup was taken from: the
 * numbers issued after the backup are used at the authority but not here.
 * `unverified_since` (when the restore held the range) is set on every range
 * by a restore and cleared once the range's next number is known unused
 * (sequences/restore-check.ts); while it is set the range hands out nothing.
 * Null for every existing range: they were never restored under this rule.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sequence_ranges').addColumn('unverified_since', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sequence_ranges').dropColumn('unverified_since').execute();
}
