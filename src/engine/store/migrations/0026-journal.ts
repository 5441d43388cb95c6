import type { Kysely } from 'kysely';
import { withoutRowid } from './ddl.js';

/**
 * The journal (issue 35, design/RECORD.md): one hash-chained record per
 * tenant of every change of record, written in the transaction of the
 * change (journal/append.ts). Rows are small because there are two or three
 * per e-CF: numbers for the kind and the e-CF, a digest only where a
 * document is recorded, text only for the rare kinds, and 8 bytes of the
 * entry's hash. `journal_heads` keeps each chain's last seq and full hash;
 * appends lock its row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withoutRowid(
    db,
    db.schema
      .createTable('journal')
      .addColumn('tenant_key', 'integer', (col) => col.notNull())
      .addColumn('seq', 'integer', (col) => col.notNull())
      .addColumn('at', 'integer', (col) => col.notNull())
      .addColumn('kind', 'integer', (col) => col.notNull())
      .addColumn('ecf_key', 'integer')
      .addColumn('ref', 'text')
      .addColumn('digest', 'blob')
      .addColumn('data', 'text')
      .addColumn('link', 'blob', (col) => col.notNull())
      .addPrimaryKeyConstraint('journal_pk', ['tenant_key', 'seq']),
  ).execute();
  await withoutRowid(
    db,
    db.schema
      .createTable('journal_heads')
      .addColumn('tenant_key', 'integer', (col) => col.primaryKey())
      .addColumn('seq', 'integer', (col) => col.notNull())
      .addColumn('hash', 'blob', (col) => col.notNull()),
  ).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('journal_heads').execute();
  await db.schema.dropTable('journal').execute();
}
