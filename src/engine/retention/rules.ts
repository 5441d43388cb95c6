import { rmSync } from 'node:fs';
import { sql, type DeleteQueryBuilder, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Db, Tx } from '../store/database.js';
import { dialectOf } from '../store/dialect.js';
import { skipLocked } from '../store/locking.js';
import type { Database } from '../store/schema.js';
import type { SettingKeyOf } from '../settings/catalogue.js';
import type { STORE_TABLES } from './inventory.js';
import type { Engine } from '../engine-types.js';
import { exportFilePath } from '../export/paths.js';
import { IDLE_MS } from '../console-sessions/sessions.js';

/** The tables the inventory says are cleaned. */
export type CleanedTable = { [T in keyof typeof STORE_TABLES]: (typeof STORE_TABLES)[T]['class'] extends 'cleaned' ? T : never }[keyof typeof STORE_TABLES];

/**
 * Where a rule left off within one run (null at its start): the events rule
 * passes rows over, so it goes on after the last `seq` it read, up to the
 * last old one it found when the run began.
 */
export type Cursor = { readonly after: number; readonly lastOld: number } | null;

export interface Batch {
  readonly removed: number;
  /** null: nothing more for this rule in this run. */
  readonly next: Cursor | 'done';
}

/**
 * One kind of row that is not a record and goes once old. `cutoff` is the
 * instant (stored form, UTC ISO) before which a row is old: now minus the
 * rule's setting in days, or now when there is no setting.
 */
export interface CleaningRule {
  readonly name: string;
  readonly table: CleanedTable;
  /** How many days the rows are kept; null: `days` days, or as soon as they are expired. */
  readonly setting: SettingKeyOf<number> | null;
  /** Days kept when there is no setting (a bound fixed by another rule of the appliance). */
  readonly days?: number;
  /** Removes at most `limit` rows (scans at most `limit`) in the caller's transaction; `engine` for a rule whose rows name files (exports). */
  removeBatch(tx: Tx, cutoff: string, limit: number, cursor: Cursor, engine: Engine): Promise<Batch>;
  /** How many rows would go now (the dry run). */
  count(db: Db, cutoff: string): Promise<number>;
}

/**
 * `column in (pick)`. On PostgreSQL the picked rows are locked as they are
 * picked, skipping rows another transaction holds (a delivery being retried
 * right now), and gathered once (`= any(array(…))`), as the queue's claims
 * are: the cleaner never waits on, or for, the work it cleans up after.
 */
function inPicked<T extends keyof Database>(db: Tx, column: string, pick: SelectQueryBuilder<Database, T, any>) {
  return (eb: ExpressionBuilder<Database, T>): Expression<SqlBool> =>
    dialectOf(db) === 'postgres' ? eb(eb.ref(column as any), '=', sql<any>`any(array(${skipLocked(db, pick)}))`) : eb(eb.ref(column as any), 'in', pick as any);
}

/**
 * The pick's condition again on the rows a delete removes, on PostgreSQL
 * only: there another transaction may change a picked row before the delete
 * reaches it (read committed checks the condition again on the row it waited
 * for). SQLite's one writer holds the lock from the pick to the delete, and
 * given the condition twice its planner walks the whole old range for every
 * batch instead of looking up the picked ids (180 ms instead of a few for
 * 500 rows, measured).
 */
function onPostgres<T extends keyof Database>(tx: Tx, condition: (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>) {
  return <Q extends DeleteQueryBuilder<Database, T, any>>(q: Q): Q => (dialectOf(tx) === 'postgres' ? (q.where(condition as any) as Q) : q);
}

const countOf = async (q: SelectQueryBuilder<Database, any, any>): Promise<number> =>
  Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

/**
 * Finished deliveries of one status whose last attempt (`updated_at`) is
 * older than the cutoff. A pending delivery never matches, and a dead one
 * retried between the pick and the delete (pending again, `updated_at` now)
 * stays: on PostgreSQL the pick skips a row being retried and the delete
 * checks the condition again (onPostgres); SQLite has one writer at a time.
 */
function finishedDeliveries(status: 'delivered' | 'dead', setting: SettingKeyOf<number>): CleaningRule {
  const old = (cutoff: string) => (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
    eb.and([eb('status', '=', status), eb('updated_at', '<', cutoff)]);
  return {
    name: `webhook_deliveries.${status}`,
    table: 'webhook_deliveries',
    setting,
    async removeBatch(tx, cutoff, limit) {
      const pick = tx.selectFrom('webhook_deliveries').select('id').where(old(cutoff)).orderBy('updated_at').limit(limit);
      const r = await tx.deleteFrom('webhook_deliveries').where(inPicked(tx, 'id', pick)).$call(onPostgres(tx, old(cutoff))).executeTakeFirst();
      const removed = Number(r.numDeletedRows);
      return { removed, next: removed < limit ? 'done' : null };
    },
    count: (db, cutoff) => countOf(db.selectFrom('webhook_deliveries').where(old(cutoff))),
  };
}

/**
 * Events older than the cutoff that no delivery names (a pending delivery
 * sends its event; a delivered or dead one shows it in the log) and that
 * remember no fact (`fact_key`: a notice or alert told once; without its
 * event the notice jobs would tell it again). Walked in `seq` order up to
 * the newest old one, `limit` rows at a time, so rows that stay are passed
 * over once per run instead of read again by every batch.
 */
const removableEvents = (cutoff: string) => (eb: ExpressionBuilder<Database, 'events'>) =>
  eb.and([
    eb('events.created_at', '<', cutoff),
    eb('events.fact_key', 'is', null),
    eb.not(eb.exists(eb.selectFrom('webhook_deliveries').select(sql`1`.as('one')).whereRef('webhook_deliveries.event_id', '=', 'events.id'))),
  ]);

const oldEvents: CleaningRule = {
  name: 'events',
  table: 'events',
  setting: 'retention.events_days',
  async removeBatch(tx, cutoff, limit, cursor) {
    const after = cursor?.after ?? 0;
    // Once per run, one step down the created_at index: the newest old event. Not max(seq), which
    // PostgreSQL answers by walking the primary key back through every recent event. An older
    // event written after it (another node's clock behind) waits for the next run.
    let lastOld = cursor?.lastOld;
    if (lastOld === undefined) {
      const last = await tx.selectFrom('events').select('seq').where('created_at', '<', cutoff).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1).executeTakeFirst();
      if (!last) return { removed: 0, next: 'done' };
      lastOld = Number(last.seq);
    }
    const window = await tx.selectFrom('events').select('seq').where('seq', '>', after).where('seq', '<=', lastOld).orderBy('seq').limit(limit).execute();
    if (window.length === 0) return { removed: 0, next: 'done' };
    const until = Number(window[window.length - 1]!.seq);
    const r = await tx.deleteFrom('events').where('seq', '>', after).where('seq', '<=', until).where(removableEvents(cutoff)).executeTakeFirst();
    return { removed: Number(r.numDeletedRows), next: until >= lastOld ? 'done' : { after: until, lastOld } };
  },
  count: (db, cutoff) => countOf(db.selectFrom('events').where(removableEvents(cutoff))),
};

/**
 * Seeds and tokens of the B2B receiver once expired (`expires_at` at or
 * before now: a live one is never removed). A spent seed is already gone;
 * the receiver removes a few expired ones whenever it makes a new one, and
 * this catches the rest.
 */
function expiredCredentials(table: 'reception_seeds' | 'reception_tokens'): CleaningRule {
  return {
    name: table,
    table,
    setting: null,
    async removeBatch(tx, cutoff, limit) {
      const pick = tx.selectFrom(table).select('value_hash').where('expires_at', '<=', cutoff).orderBy('expires_at').limit(limit);
      const r = await tx.deleteFrom(table).where(inPicked(tx, 'value_hash', pick)).$call(onPostgres(tx, (eb) => eb('expires_at', '<=', cutoff))).executeTakeFirst();
      const removed = Number(r.numDeletedRows);
      return { removed, next: removed < limit ? 'done' : null };
    },
    count: (db, cutoff) => countOf(db.selectFrom(table).where('expires_at', '<=', cutoff)),
  };
}

/**
 * Fingerprints of e-CF issued longer ago than duplicate detection can look
 * back (`duplicates.window_minutes` is at most 7 days), so no search still
 * reaches them; the e-CF itself, a record, keeps everything they were made of.
 */
export const FINGERPRINT_DAYS = 7;
const oldFingerprints: CleaningRule = {
  name: 'ecf_fingerprints',
  table: 'ecf_fingerprints',
  setting: null,
  days: FINGERPRINT_DAYS,
  async removeBatch(tx, cutoff, limit) {
    const pick = tx.selectFrom('ecf_fingerprints').select('ecf_id').where('issued_at', '<', cutoff).orderBy('issued_at').limit(limit);
    const r = await tx.deleteFrom('ecf_fingerprints').where(inPicked(tx, 'ecf_id', pick)).where('issued_at', '<', cutoff).executeTakeFirst();
    const removed = Number(r.numDeletedRows);
    return { removed, next: removed < limit ? 'done' : null };
  },
  count: (db, cutoff) => countOf(db.selectFrom('ecf_fingerprints').where('issued_at', '<', cutoff)),
};

/**
 * Finished period exports (ready or failed) older than `exports.keep_days`:
 * the row, then its ZIP in the data dir. A file whose row's delete is then
 * rolled back is gone with the row still there: the API answers it as gone
 * (Export.FileGone) and the next run removes the row.
 */
const oldExports: CleaningRule = {
  name: 'exports',
  table: 'exports',
  setting: 'exports.keep_days',
  async removeBatch(tx, cutoff, limit, _cursor, engine) {
    const rows = await tx.selectFrom('exports').select('id').where('finished_at', '<', cutoff).orderBy('finished_at').limit(limit).execute();
    if (rows.length === 0) return { removed: 0, next: 'done' };
    const ids = rows.map((r) => r.id);
    const r = await tx.deleteFrom('exports').where('id', 'in', ids).where('finished_at', '<', cutoff).executeTakeFirst();
    for (const id of ids) rmSync(exportFilePath(engine, id), { force: true });
    const removed = Number(r.numDeletedRows);
    return { removed, next: rows.length < limit ? 'done' : null };
  },
  count: (db, cutoff) => countOf(db.selectFrom('exports').where('finished_at', '<', cutoff)),
};

/**
 * The console's sessions once ended: past their absolute expiry, or idle
 * (last seen IDLE_MS or longer before now). A live one is never removed; a
 * revoked key's sessions end on their next use (and are removed then) or here
 * once expired.
 */
const endedConsoleSessions: CleaningRule = {
  name: 'console_sessions',
  table: 'console_sessions',
  setting: null,
  async removeBatch(tx, cutoff, limit) {
    const idle = new Date(Date.parse(cutoff) - IDLE_MS).toISOString();
    const ended = (eb: ExpressionBuilder<Database, 'console_sessions'>) => eb.or([eb('expires_at', '<=', cutoff), eb('seen_at', '<=', idle)]);
    const pick = tx.selectFrom('console_sessions').select('id_hash').where(ended).limit(limit);
    const r = await tx.deleteFrom('console_sessions').where(inPicked(tx, 'id_hash', pick)).$call(onPostgres(tx, ended)).executeTakeFirst();
    const removed = Number(r.numDeletedRows);
    return { removed, next: removed < limit ? 'done' : null };
  },
  count: (db, cutoff) => {
    const idle = new Date(Date.parse(cutoff) - IDLE_MS).toISOString();
    return countOf(db.selectFrom('console_sessions').where((eb) => eb.or([eb('expires_at', '<=', cutoff), eb('seen_at', '<=', idle)])));
  },
};

/**
 * Every rule, in the order a run applies them: deliveries before events, so
 * an event whose last delivery goes in this run goes in this run too.
 */
export const CLEANING_RULES: readonly CleaningRule[] = [
  finishedDeliveries('delivered', 'retention.delivered_webhooks_days'),
  finishedDeliveries('dead', 'retention.dead_webhooks_days'),
  oldEvents,
  expiredCredentials('reception_seeds'),
  expiredCredentials('reception_tokens'),
  oldFingerprints,
  oldExports,
  endedConsoleSessions,
];
