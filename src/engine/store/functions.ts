import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder } from 'kysely';
import { dialectOf } from './dialect.js';

/** The larger of two values: SQLite's two-argument max(), PostgreSQL's greatest(). */
export function greater<T>(db: Kysely<any>, eb: ExpressionBuilder<any, any>, a: Expression<T>, b: Expression<T>) {
  return eb.fn<T>(dialectOf(db) === 'sqlite' ? 'max' : 'greatest', [a, b]);
}

/**
 * The cheapest key to find a row again or walk a table in batches: SQLite's
 * rowid (the table's own b-tree key), the primary key `id` on PostgreSQL,
 * which has no stable row number.
 */
export function rowKey(db: Kysely<any>): { readonly ref: RawBuilder<number | string>; readonly first: number | string } {
  return dialectOf(db) === 'sqlite' ? { ref: sql`rowid`, first: 0 } : { ref: sql`id`, first: '' };
}
