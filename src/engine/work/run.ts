import type { Engine } from '../engine-types.js';
import { groupOf } from './lanes.js';
import type { Feedback, WorkSource } from './pump.js';
import { claim, claimLane, complete, dueLanes, LeaseLost, reschedule, type WorkItem } from './queue.js';

/**
 * What a handler decides about one item: finished, try again later, or
 * `recorded` when the handler already completed or rescheduled the item in
 * the transaction that recorded its result (so both happen or neither).
 */
export type WorkOutcome =
  | { readonly done: true }
  | { readonly retryAt: Date; readonly error: string; readonly busy?: boolean }
  | { readonly recorded: true; readonly busy?: boolean };
export const RECORDED: WorkOutcome = { recorded: true };
/** Recorded, and the far side said it is overloaded (429, 503): the pump slows down. */
export const RECORDED_BUSY: WorkOutcome = { recorded: true, busy: true };

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
    const { busy: _busy, ...result } = await performItem(engine, item, options.owner, options.handlers);
    results.push(result);
  }
  return results;
}

/** Performs one claimed item with its kind's handler and records the outcome the handler did not record itself. */
export async function performItem(
  engine: Engine,
  item: WorkItem,
  owner: string,
  handlers: Readonly<Record<string, WorkHandler>>,
): Promise<ItemResult & { readonly busy: boolean }> {
  let outcome: WorkOutcome;
  try {
    outcome = await handlers[item.kind]!(engine, item);
  } catch (e) {
    const fields = { kind: item.kind, workId: item.id, tenantId: item.tenantId, ref: item.ref, attempt: item.attempts };
    if (e instanceof LeaseLost) {
      engine.log.warn(fields, `${item.kind} ${item.ref ?? item.id}: the lease ran out mid-work and another claim took it; this result was dropped`);
      return { id: item.id, kind: item.kind, result: 'lease_lost', busy: false };
    }
    const error = e instanceof Error ? e.message : String(e);
    outcome = { retryAt: new Date(engine.clock.now().getTime() + CRASH_RETRY_MS), error };
    engine.log.error({ ...fields, err: e, retryAt: outcome.retryAt.toISOString() }, `${item.kind} ${item.ref ?? item.id} failed; trying again later`);
  }
  const busy = 'busy' in outcome && outcome.busy === true;
  const now = engine.clock.now();
  if ('recorded' in outcome) return { id: item.id, kind: item.kind, result: 'recorded', busy };
  if ('done' in outcome) {
    const kept = await complete(engine.db, item, owner);
    return { id: item.id, kind: item.kind, result: kept ? 'done' : 'lease_lost', busy };
  }
  const kept = await reschedule(engine.db, now, item, owner, { dueAt: outcome.retryAt, error: outcome.error });
  return { id: item.id, kind: item.kind, result: kept ? 'rescheduled' : 'lease_lost', error: outcome.error, busy };
}

/**
 * The work table as a source of the pump: lanes from its `lane` column,
 * claims by lane, each item performed by its kind's handler.
 */
export function workTableSource(engine: Engine, options: RunOptions & { readonly onResult?: (result: ItemResult) => void }): WorkSource<WorkItem> {
  const kinds = Object.keys(options.handlers);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  // Never claimed again by this process while it performs them, even past their lease.
  const performing = new Set<string>();
  return {
    name: 'work',
    async dueLanes(now, limit) {
      return (await dueLanes(engine.db, now, kinds, limit)).map((key) => ({ key, group: groupOf(key) }));
    },
    async claim(lane, now, limit) {
      const items = await claimLane(engine.db, now, lane.key, { kinds, owner: options.owner, leaseMs, limit, exclude: [...performing] });
      for (const item of items) performing.add(item.id);
      return items;
    },
    async perform(item): Promise<Feedback> {
      try {
        const { busy, ...result } = await performItem(engine, item, options.owner, options.handlers);
        options.onResult?.(result);
        return busy ? 'busy' : 'ok';
      } finally {
        performing.delete(item.id);
      }
    },
  };
}
