import type { Feedback, Lane, WorkSource } from '../../../src/engine/work/pump.js';

/**
 * In-memory work sources for the pump's scheduling tests. They do no I/O:
 * every claim and perform is a promise the test controls, so after a
 * `settle()` the pump has done all it will do until the next completion or
 * timer, and the tests can assert what it started without timing anything.
 */

export interface FakeItem {
  readonly id: number;
  readonly lane: string;
  readonly group: string;
}

interface Deferred {
  readonly item: FakeItem;
  resolve(feedback: Feedback): void;
  reject(error: Error): void;
}

/** In-flight counts per group, shared by the sources whose lanes share groups. */
export class GroupTally {
  readonly inGroup = new Map<string, number>();
  readonly maxInGroup = new Map<string, number>();
}

export class FakeSource implements WorkSource<FakeItem> {
  readonly name: string;
  readonly perLane?: number;
  /** Unclaimed items per lane, in the order lanes were first given work (dueLanes keeps that order). */
  readonly queues = new Map<string, FakeItem[]>();
  readonly groups = new Map<string, string>();
  /** Every start, in order. */
  readonly starts: FakeItem[] = [];
  readonly performed = new Map<number, number>();
  readonly tally: GroupTally;
  readonly inLane = new Map<string, number>();
  readonly maxInLane = new Map<string, number>();
  /** Performs waiting for the test to end them (held mode), oldest first. */
  readonly held: Deferred[] = [];
  dueLanesCalls = 0;
  claimCalls = 0;
  /** Called in every dueLanes after the lanes were read, before they are returned (to commit work at the most awkward moment). */
  afterRead?: () => Promise<void> | void;
  #next = 1;

  constructor(
    options: {
      name?: string;
      perLane?: number;
      /** held: each perform waits for release(); ticks: ends after a number of event-loop turns; or a function of the item. */
      mode?: 'held' | { ticks: (item: FakeItem) => number } | ((item: FakeItem) => Promise<Feedback>);
      tally?: GroupTally;
    } = {},
  ) {
    this.tally = options.tally ?? new GroupTally();
    this.name = options.name ?? 'fake';
    if (options.perLane !== undefined) this.perLane = options.perLane;
    this.mode = options.mode ?? 'held';
  }

  readonly mode: 'held' | { ticks: (item: FakeItem) => number } | ((item: FakeItem) => Promise<Feedback>);

  add(lane: string, group: string, count = 1): FakeItem[] {
    const known = this.groups.get(lane);
    if (known !== undefined && known !== group) throw new Error(`lane ${lane} is in group ${known}, not ${group}`);
    this.groups.set(lane, group);
    const queue = this.queues.get(lane) ?? [];
    this.queues.set(lane, queue);
    const added: FakeItem[] = [];
    for (let i = 0; i < count; i++) added.push({ id: this.#next++, lane, group });
    queue.push(...added);
    return added;
  }

  get inGroup(): Map<string, number> {
    return this.tally.inGroup;
  }

  get maxInGroup(): Map<string, number> {
    return this.tally.maxInGroup;
  }

  unclaimed(lane: string): number {
    return this.queues.get(lane)?.length ?? 0;
  }

  get inFlight(): number {
    let n = 0;
    for (const v of this.inLane.values()) n += v;
    return n;
  }

  async dueLanes(_now: Date, limit: number): Promise<readonly Lane[]> {
    this.dueLanesCalls++;
    const lanes: Lane[] = [];
    for (const [key, queue] of this.queues) if (queue.length > 0) lanes.push({ key, group: this.groups.get(key)! });
    await this.afterRead?.();
    return lanes.slice(0, limit);
  }

  async claim(lane: Lane, _now: Date, limit: number): Promise<readonly FakeItem[]> {
    this.claimCalls++;
    const queue = this.queues.get(lane.key!) ?? [];
    return queue.splice(0, limit);
  }

  perform(item: FakeItem): Promise<Feedback> {
    this.starts.push(item);
    const g = (this.inGroup.get(item.group) ?? 0) + 1;
    const l = (this.inLane.get(item.lane) ?? 0) + 1;
    this.inGroup.set(item.group, g);
    this.inLane.set(item.lane, l);
    this.maxInGroup.set(item.group, Math.max(g, this.maxInGroup.get(item.group) ?? 0));
    this.maxInLane.set(item.lane, Math.max(l, this.maxInLane.get(item.lane) ?? 0));
    const ended = () => {
      this.inGroup.set(item.group, this.inGroup.get(item.group)! - 1);
      this.inLane.set(item.lane, this.inLane.get(item.lane)! - 1);
      this.performed.set(item.id, (this.performed.get(item.id) ?? 0) + 1);
    };
    let work: Promise<Feedback>;
    if (this.mode === 'held') {
      work = new Promise<Feedback>((resolve, reject) => this.held.push({ item, resolve, reject }));
    } else if (typeof this.mode === 'function') {
      work = this.mode(item);
    } else {
      const ticks = this.mode.ticks(item);
      work = (async () => {
        for (let i = 0; i < ticks; i++) await new Promise((r) => setImmediate(r));
        return 'ok' as const;
      })();
    }
    return work.finally(ended);
  }

  /** Ends held performs: by position among those held (oldest first), with the feedback given. */
  release(index = 0, feedback: Feedback = 'ok'): FakeItem {
    const [d] = this.held.splice(index, 1);
    if (!d) throw new Error(`no held perform at ${index} (${this.held.length} held)`);
    d.resolve(feedback);
    return d.item;
  }

  fail(index: number, error: Error): FakeItem {
    const [d] = this.held.splice(index, 1);
    if (!d) throw new Error(`no held perform at ${index}`);
    d.reject(error);
    return d.item;
  }
}

/** Lets every promise reaction and immediate run: the pump, with only fake sources, has then done what it can without a timer. */
export async function settle(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** Polls in real time until `check` holds (a timer of the pump must fire first); fails after `timeoutMs`. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
