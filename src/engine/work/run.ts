import type { Engine } from '../engine.js';
import { claim, complete, reschedule, type WorkItem } from './queue.js';

/**
 * What a handler decides about one item: finished, try again later, or
 * `recorded` when the handler already completed or rescheduled the item in
 * the transaction that recorded its result (so both happen or neither).
 */
export type WorkOutcome = { readonly done: true } | { readonly retryAt: Date; readonly error: string } | { readonly recorded: true };
export const RECORDED: WorkOutcome = { recorded: true };

/**
 * Performs one claimed item. Runs outside any transaction (it may talk to the
 * network) and must be idempotent: an item whose lease expired mid-work is
 * claimed again and performed again.
 */
export type WorkHandler = (engine: Engine, item: WorkItem) => Promise<WorkOutcome>;

export interface ItemResult {
  readonly id: string;
  readonly kind: string;
  readonly result: 'done' | 'rescheduled' | 'recorded' | 'lease_lost';
  readonly error?: string;
}

export interface RunOptions {
  readonly owner: string;
  readonly handlers: Readonly<Record<string, WorkHandler>>;
  readonly limit?: number;
  readonly leaseMs?: number;
}

/** How long a claim is held before others may take the item again. */
export const DEFAULT_LEASE_MS = 2 * 60_000;
/** A handler that throws is tried again after this long. */
export const CRASH_RETRY_MS = 60_000;

/**
 * Claims a batch of due items of the kinds that have handlers, performs them
 * one by one and records each outcome. Returns a result per item; one failing
 * item never stops the others.
 */
export async function runDueWork(engine: Engine, options: RunOptions): Promise<ItemResult[]> {
  const items = await claim(engine.db, engine.clock.now(), {
    kinds: Object.keys(options.handlers),
    owner: options.owner,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    limit: options.limit ?? 20,
  });
  const results: ItemResult[] = [];
  for (const item of items) {
    let outcome: WorkOutcome;
    try {
      outcome = await options.handlers[item.kind]!(engine, item);
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      outcome = { retryAt: new Date(engine.clock.now().getTime() + CRASH_RETRY_MS), error };
    }
    const now = engine.clock.now();
    if ('recorded' in outcome) {
      results.push({ id: item.id, kind: item.kind, result: 'recorded' });
    } else if ('done' in outcome) {
      const kept = await complete(engine.db, item, options.owner);
      results.push({ id: item.id, kind: item.kind, result: kept ? 'done' : 'lease_lost' });
    } else {
      const kept = await reschedule(engine.db, now, item, options.owner, { dueAt: outcome.retryAt, error: outcome.error });
      results.push({ id: item.id, kind: item.kind, result: kept ? 'rescheduled' : 'lease_lost', error: outcome.error });
    }
  }
  return results;
}
