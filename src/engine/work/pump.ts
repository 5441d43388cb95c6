import { onWorkBell } from './bell.js';

/**
 * The one mechanism that performs durable work: submission to the
 * authority, ACECF deliveries and webhook deliveries are each a WorkSource
 * (where the rows live, how one is claimed with a lease and performed); the
 * pump decides what runs when.
 *
 * - Many at a time: items run concurrently up to the bound of their group
 *   (an authority environment, the receivers, the webhooks). Network calls
 *   overlap; each result is still recorded in its own transaction by the
 *   source.
 * - Fair: claims go round-robin over the lanes that have due work, a few
 *   items per lane per turn, so a lane with ten thousand due items takes
 *   turns with a lane that has one.
 * - Prompt: a ring of the work bell (a commit of new work, bell.ts) makes
 *   the pump look again at once; otherwise it looks every `pollMs`, and
 *   while it is busy every `refreshMs`, for lanes that became due.
 * - Polite: a source that reports `busy` (the far side answered 429 or 503)
 *   halves its group's bound, at most once a second; each success gives one
 *   slot back, up to the configured bound.
 * - Flat in memory: it holds the list of due lanes and the items in flight,
 *   never the backlog.
 */

export interface Lane {
  /** null: work written before lanes existed. */
  readonly key: string | null;
  readonly group: string;
}

/** What performing an item says about the far side. */
export type Feedback = 'ok' | 'busy';

export interface WorkSource<T> {
  readonly name: string;
  /** Lanes with work due now and free of leases, the most overdue first. */
  dueLanes(now: Date, limit: number): Promise<readonly Lane[]>;
  /** Claims (leases) up to `limit` due items of the lane. */
  claim(lane: Lane, now: Date, limit: number): Promise<readonly T[]>;
  /** Performs one claimed item and records its result. A throw is reported to onError; the lease then expires and the item runs again. */
  perform(item: T): Promise<Feedback>;
  /** Items of one lane in flight at once; absent, only the group's bound applies. */
  readonly perLane?: number;
}

export interface PumpOptions {
  readonly sources: readonly WorkSource<any>[];
  /** The engine's clock: what is due is decided on it. */
  readonly now: () => Date;
  /** The bound of each group; read again at every look for lanes, so a changed setting applies within `refreshMs`. */
  readonly bounds: () => Promise<(group: string) => number>;
  /** Real-time wait between looks when nothing is due. */
  readonly pollMs?: number;
  /** Real-time age after which the list of due lanes is read again while work is running. */
  readonly refreshMs?: number;
  /** Stop claiming; the items in flight finish, then the pump returns. */
  readonly signal?: AbortSignal;
  /** Return as soon as nothing is due and nothing is in flight (tests, one-shot runs). */
  readonly untilIdle?: boolean;
  readonly onError?: (error: unknown, source: string) => void;
}

export interface PumpStats {
  readonly performed: number;
  readonly busy: number;
  readonly failed: number;
}

const MAX_LANES = 512;
const DEFAULT_POLL_MS = 1000;
const DEFAULT_REFRESH_MS = 250;
/** A ring re-reads the lanes, but not more often than this while work runs. */
const MIN_REFRESH_MS = 10;
const BUSY_CUT_EVERY_MS = 1000;

interface LaneEntry {
  readonly source: WorkSource<unknown>;
  readonly lane: Lane;
  readonly id: string;
  exhausted: boolean;
}

export async function pump(options: PumpOptions): Promise<PumpStats> {
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
  const inGroup = new Map<string, number>();
  const inLane = new Map<string, number>();
  // The bound in force per group after busy answers (absent: the configured one).
  const allowed = new Map<string, number>();
  const lastCut = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let performed = 0;
  let busy = 0;
  let failed = 0;
  let lanes: LaneEntry[] = [];
  // Per group, whose turn is next: the lane after the last one served, and that lane itself (in
  // case the one after it is gone at the next look). Per group, because serving another group's
  // lanes must not move a full group's turn past its waiting lanes.
  const nextUp = new Map<string, { readonly next: string; readonly served: string }>();
  let readAt = -Infinity;
  let rung = true;
  let boundOf: (group: string) => number = () => 1;

  let wake: (() => void) | undefined;
  const nudge = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const unsubscribe = onWorkBell(() => {
    rung = true;
    nudge();
  });
  options.signal?.addEventListener('abort', nudge);
  const stopped = () => options.signal?.aborted === true;
  const limitOf = (group: string) => Math.max(1, Math.min(boundOf(group), allowed.get(group) ?? Infinity));

  const start = (entry: LaneEntry, item: unknown) => {
    const group = entry.lane.group;
    inGroup.set(group, (inGroup.get(group) ?? 0) + 1);
    inLane.set(entry.id, (inLane.get(entry.id) ?? 0) + 1);
    const task = entry.source
      .perform(item)
      .then(
        (feedback) => {
          performed++;
          if (feedback === 'busy') {
            busy++;
            const at = performance.now();
            if (at - (lastCut.get(group) ?? -Infinity) >= BUSY_CUT_EVERY_MS) {
              lastCut.set(group, at);
              allowed.set(group, Math.max(1, Math.floor(limitOf(group) / 2)));
            }
          } else if (allowed.has(group)) {
            const next = allowed.get(group)! + 1;
            if (next >= boundOf(group)) allowed.delete(group);
            else allowed.set(group, next);
          }
        },
        (error: unknown) => {
          failed++;
          options.onError?.(error, entry.source.name);
        },
      )
      .finally(() => {
        inGroup.set(group, inGroup.get(group)! - 1);
        const left = inLane.get(entry.id)! - 1;
        if (left === 0) inLane.delete(entry.id);
        else inLane.set(entry.id, left);
        running.delete(task);
        nudge();
      });
    running.add(task);
  };

  const readLanes = async () => {
    // Cleared before reading: a ring during the read may be for work the read did not see.
    rung = false;
    boundOf = await options.bounds();
    const next: LaneEntry[] = [];
    for (const source of options.sources) {
      for (const lane of await source.dueLanes(options.now(), MAX_LANES)) {
        next.push({ source, lane, id: `${source.name}\u0000${lane.key ?? ''}`, exhausted: false });
      }
    }
    lanes = next;
    readAt = performance.now();
  };

  /** The group's lanes in turn order: the one whose turn it is first. */
  const inTurn = (group: string, list: readonly LaneEntry[]): LaneEntry[] => {
    const turn = nextUp.get(group);
    let first = turn ? list.findIndex((l) => l.id === turn.next) : -1;
    if (first < 0 && turn) first = list.findIndex((l) => l.id === turn.served) + 1;
    first = Math.max(0, first) % Math.max(1, list.length);
    return [...list.slice(first), ...list.slice(0, first)];
  };

  try {
    for (;;) {
      if (stopped()) break;
      const age = performance.now() - readAt;
      let fresh = false;
      if (age >= refreshMs || ((rung || lanes.length === 0) && age >= MIN_REFRESH_MS) || (running.size === 0 && (rung || lanes.length === 0))) {
        await readLanes();
        fresh = true;
      }

      // One turn per group: each lane with room, in turn, gets its share of the group's free slots.
      let started = 0;
      const groups = new Map<string, LaneEntry[]>();
      for (const l of lanes) groups.set(l.lane.group, [...(groups.get(l.lane.group) ?? []), l]);
      for (const [group, list] of groups) {
        const order = inTurn(group, list);
        for (let i = 0; i < order.length && !stopped(); i++) {
          const entry = order[i]!;
          const groupFree = limitOf(group) - (inGroup.get(group) ?? 0);
          if (groupFree <= 0) break;
          const laneFree = (entry.source.perLane ?? Infinity) - (inLane.get(entry.id) ?? 0);
          const take = Math.min(groupFree, laneFree, Math.ceil(groupFree / list.length));
          if (take <= 0) continue;
          const items = await entry.source.claim(entry.lane, options.now(), take);
          if (items.length < take) entry.exhausted = true;
          for (const item of items) start(entry, item);
          started += items.length;
          if (items.length > 0) nextUp.set(group, { next: order[(i + 1) % order.length]!.id, served: entry.id });
        }
      }
      if (lanes.some((l) => l.exhausted)) lanes = lanes.filter((l) => !l.exhausted);
      if (started > 0) continue;
      if (running.size === 0 && lanes.length === 0 && fresh && options.untilIdle) break;
      if (running.size === 0 && lanes.length === 0 && fresh === false) continue;
      if (stopped()) continue;
      const since = performance.now() - readAt;
      const delay = rung ? MIN_REFRESH_MS - since : lanes.length > 0 || running.size > 0 ? refreshMs - since : pollMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => nudge(), Math.max(1, delay));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await Promise.allSettled([...running]);
    // Items started after the last look may have finished while waiting; their tasks are settled too.
    while (running.size > 0) await Promise.allSettled([...running]);
  } finally {
    unsubscribe();
    options.signal?.removeEventListener('abort', nudge);
  }
  return { performed, busy, failed };
}
