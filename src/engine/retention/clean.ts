import { setTimeout as pause } from 'node:timers/promises';
import { toStoredInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { getSetting } from '../settings/settings.js';
import { inTransaction } from '../store/database.js';
import { onceInCluster } from '../store/locking.js';
import { CLEANING_RULES, type CleaningRule, type Cursor } from './rules.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface CleanOptions {
  /** Rows removed (or passed over) per transaction. */
  readonly batchRows?: number;
  /**
   * Real time between two batches, at least; the pause is as long as the
   * batch before it took when that is longer. So writers waiting for SQLite's
   * one write lock (issuing, the work pump) get it between batches, and the
   * cleaner holds it at most half the time whatever the machine's load.
   * 0 in tests (and no pause at all).
   */
  readonly pauseMs?: number;
  /** Stops between batches (`ecf serve` stopping); what was removed stays removed, and the next run goes on. */
  readonly signal?: AbortSignal;
  /** After each batch committed: the rule and the rows it has removed so far in this run. */
  readonly onBatch?: (rule: string, rows: number) => void;
}

export interface RuleSummary {
  readonly rule: string;
  readonly table: string;
  /** The setting that says how long rows are kept, or null: `days` days, or removed once expired. */
  readonly setting: string | null;
  /** Days kept when there is no setting; null when rows go once expired. */
  readonly days: number | null;
  /** Rows older than this (UTC ISO) go. */
  readonly cutoff: string;
  /** Rows removed (cleanStore) or that would be (countCleanable). */
  readonly rows: number;
}

export interface CleanSummary {
  /** false: another process of the cluster was cleaning, and this run left the rest to it. */
  readonly ran: boolean;
  /** true: the signal stopped the run before the end; the next run goes on. */
  readonly stopped: boolean;
  readonly removed: number;
  readonly rules: readonly RuleSummary[];
}

/** Measured: 500 rows held the write lock 25–100 ms on a loaded two-core machine (random-keyed indexes: a page each). */
export const DEFAULT_BATCH_ROWS = 200;
const DEFAULT_PAUSE_MS = 20;

/** The instant before which the rule's rows are old, read from its setting now. */
async function cutoffOf(engine: Engine, rule: CleaningRule, now: Date): Promise<string> {
  const days = rule.setting ? await getSetting(engine, rule.setting) : (rule.days ?? 0);
  return toStoredInstant(new Date(now.getTime() - days * DAY_MS));
}

/**
 * The store-clean job's work: removes what is not a record once older than
 * its setting (rules.ts; the tables it may touch are in inventory.ts), in
 * short transactions of `batchRows` rows each, so `ecf serve` keeps issuing
 * meanwhile. Never touches a record. Cutoffs are taken once, at the start,
 * from the injected clock. A second run right after removes nothing.
 */
export async function cleanStore(engine: Engine, options: CleanOptions = {}): Promise<CleanSummary> {
  const limit = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const pauseMs = options.pauseMs ?? DEFAULT_PAUSE_MS;
  const now = engine.clock.now();
  const rules: RuleSummary[] = [];
  let ran = true;
  for (const rule of CLEANING_RULES) {
    const cutoff = await cutoffOf(engine, rule, now);
    let rows = 0;
    let cursor: Cursor = null;
    while (ran && !options.signal?.aborted) {
      const began = performance.now();
      const batch = await inTransaction(engine.db, async (tx) => {
        // Two nodes cleaning at once would only contend for the same rows: one is enough.
        if (!(await onceInCluster(tx, 'store-clean'))) return null;
        return rule.removeBatch(tx, cutoff, limit, cursor, engine);
      });
      if (batch === null) {
        ran = false;
        break;
      }
      rows += batch.removed;
      options.onBatch?.(rule.name, rows);
      if (batch.next === 'done') break;
      cursor = batch.next;
      if (pauseMs > 0) await pause(Math.max(pauseMs, performance.now() - began));
    }
    rules.push({ rule: rule.name, table: rule.table, setting: rule.setting, days: rule.setting ? null : (rule.days ?? null), cutoff, rows });
  }
  const stopped = options.signal?.aborted === true;
  const removed = totalOf(rules);
  if (removed > 0) engine.log.info({ removed: rules.filter((r) => r.rows > 0).map((r) => ({ rule: r.rule, rows: r.rows })) }, `store-clean removed ${removed} row(s) that are not records`);
  return { ran, stopped, removed, rules };
}

const totalOf = (rules: readonly RuleSummary[]): number => rules.reduce((n, r) => n + r.rows, 0);

export interface CleanableSummary {
  /** Rows a run would remove now. */
  readonly cleanable: number;
  readonly rules: readonly RuleSummary[];
}

/** What cleanStore would remove now, per rule, removing nothing (`ecf store clean --dry-run`). */
export async function countCleanable(engine: Engine): Promise<CleanableSummary> {
  const now = engine.clock.now();
  const rules: RuleSummary[] = [];
  for (const rule of CLEANING_RULES) {
    const cutoff = await cutoffOf(engine, rule, now);
    rules.push({ rule: rule.name, table: rule.table, setting: rule.setting, days: rule.setting ? null : (rule.days ?? null), cutoff, rows: await rule.count(engine.db, cutoff) });
  }
  return { cleanable: totalOf(rules), rules };
}
