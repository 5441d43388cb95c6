import { sql, type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { dialectOf } from './dialect.js';

/**
 * What makes read-then-write safe on each store. On SQLite every write
 * transaction begins IMMEDIATE, so writers run one at a time and a row read
 * inside one cannot change before it commits: the helpers below are no-ops.
 * On PostgreSQL (read committed, many connections, several processes) they
 * take the row or advisory locks that give the same guarantee.
 */

/**
 * The rows read will be written by this transaction: another writer waits
 * until it ends and then reads them as committed (`for update`).
 */
export function forUpdate<QB extends SelectQueryBuilder<any, any, any>>(db: Kysely<any>, qb: QB, of?: string): QB {
  return dialectOf(db) === 'postgres' ? (qb.forUpdate(of ? [of] : undefined) as QB) : qb;
}

/**
 * Claiming work: rows another claimer holds right now are passed over, not
 * waited for (`for update skip locked`), so claimers on several processes
 * take different rows. `of` names the one table of a join whose rows are claimed.
 */
export function skipLocked<QB extends SelectQueryBuilder<any, any, any>>(db: Kysely<any>, qb: QB, of?: string): QB {
  return dialectOf(db) === 'postgres' ? (qb.forUpdate(of ? [of] : undefined).skipLocked() as QB) : qb;
}

/**
 * The condition of a claiming `update … where id in (pick) returning`, where
 * `pick` selects the ids of at most its LIMIT rows. On PostgreSQL the rows
 * are chosen once, locked, skipping those another claimer holds: as an IN
 * subquery the planner may run the pick again for each row it updates and
 * claim more rows than the limit (seen: two deliveries for a limit of one),
 * so the ids are gathered into an array first (`= any(array(…))`, an init plan).
 */
export function claimedIds(db: Kysely<any>, pick: SelectQueryBuilder<any, any, any>, of?: string) {
  return (eb: ExpressionBuilder<any, any>): Expression<SqlBool> =>
    dialectOf(db) === 'postgres' ? eb(eb.ref('id'), '=', sql`any(array(${skipLocked(db, pick, of)}))`) : eb(eb.ref('id'), 'in', pick);
}

/**
 * Runs once per cluster: true when this transaction holds the named lock
 * (until it ends), false when another process holds it now, whose run makes
 * this one unnecessary. Always true on SQLite, whose one writer is enough.
 */
export async function onceInCluster(tx: Kysely<any>, name: string): Promise<boolean> {
  if (dialectOf(tx) === 'sqlite') return true;
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(${`ecf:${name}`})) as locked`.execute(tx);
  return rows[0]!.locked;
}

/**
 * A unique constraint refused the write: another transaction committed the
 * same key first. Which one, when `index` is given (SQLite names the
 * columns, PostgreSQL the index).
 */
export function isUniqueViolation(error: unknown, index?: { readonly name: string; readonly columns: readonly string[] }): boolean {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  if (e?.code === '23505') return !index || e.constraint === index.name;
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return !index || (typeof e.message === 'string' && index.columns.every((c) => e.message!.toString().includes(`.${c}`)));
  }
  return false;
}
