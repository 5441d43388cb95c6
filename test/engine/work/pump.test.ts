import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ringWorkBell } from '../../../src/engine/work/bell.js';
import { pump, type PumpOptions, type PumpStats } from '../../../src/engine/work/pump.js';
import { eventually, FakeSource, GroupTally, settle } from './pump-fakes.js';

/**
 * The pump's scheduling rules with in-memory sources: no I/O, so what it
 * starts after each completion is decided once the event loop has settled.
 * Long poll and refresh intervals keep its own timers out of the way; a
 * ring of the bell is the only thing that makes it look for new lanes.
 */

const NEVER = 1e9;
const clock = () => new Date('2026-03-10T14:00:00.000Z');

function start(sources: FakeSource[], bounds: Record<string, number>, options: Partial<PumpOptions> = {}) {
  const stop = new AbortController();
  let result: PumpStats | undefined;
  const errors: [unknown, string][] = [];
  const running = pump({
    sources,
    now: clock,
    bounds: async () => (group) => bounds[group] ?? 1,
    pollMs: NEVER,
    refreshMs: NEVER,
    signal: stop.signal,
    onError: (e, s) => errors.push([e, s]),
    ...options,
  }).then((r) => (result = r));
  return { stop, running, errors, done: () => result };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the work pump', () => {
  it('returns when idle after performing every item once, within each group’s and lane’s bound', async () => {
    const ticks = { ticks: (item: { id: number }) => 1 + ((item.id * 7) % 5) };
    const tally = new GroupTally();
    const limited = new FakeSource({ name: 'limited', perLane: 2, mode: ticks, tally });
    const free = new FakeSource({ name: 'free', mode: ticks, tally });
    for (const lane of ['a', 'b', 'c']) limited.add(lane, 'g1', 30);
    free.add('x', 'g1', 20);
    free.add('y', 'g2', 40);
    free.add('z', 'g2', 5);
    const stats = await pump({
      sources: [limited, free],
      now: clock,
      bounds: async () => (g) => (g === 'g1' ? 5 : 3),
      untilIdle: true,
    });
    expect(stats).toEqual({ performed: 155, busy: 0, failed: 0 });
    for (const s of [limited, free]) {
      expect([...s.performed.values()].every((n) => n === 1)).toBe(true);
      expect([...s.queues.values()].every((q) => q.length === 0)).toBe(true);
    }
    expect(limited.performed.size + free.performed.size).toBe(155);
    // The bound of g1 is shared by both sources' lanes, and reached.
    expect(tally.maxInGroup.get('g1')).toBe(5);
    expect(tally.maxInGroup.get('g2')).toBe(3);
    for (const lane of ['a', 'b', 'c']) expect(limited.maxInLane.get(lane)).toBe(2);
  });

  it('never has more in flight in a group than its bound, counting every source’s lanes of the group', async () => {
    const tally = new GroupTally();
    const one = new FakeSource({ name: 'one', tally });
    const two = new FakeSource({ name: 'two', tally });
    one.add('a', 'shared', 10);
    two.add('b', 'shared', 10);
    two.add('c', 'other', 10);
    const p = start([one, two], { shared: 3, other: 2 });
    await settle();
    expect(tally.inGroup.get('shared')).toBe(3);
    expect(tally.inGroup.get('other')).toBe(2);
    for (let i = 0; i < 25; i++) {
      const source = i % 2 === 0 && one.held.length > 0 ? one : two.held.length > 0 ? two : one;
      source.release(0);
      await settle();
    }
    expect(tally.maxInGroup.get('shared')).toBe(3);
    expect(tally.maxInGroup.get('other')).toBe(2);
    p.stop.abort();
    while (one.held.length + two.held.length > 0) (one.held.length ? one : two).release(0);
    await p.running;
  });

  it('gives a lane with one item a turn before the next few items of a lane with a thousand', async () => {
    const bound = 4;
    const source = new FakeSource();
    source.add('tenant-a|send', 'taxauth:test', 1000);
    const p = start([source], { 'taxauth:test': bound });
    await settle();
    expect(source.inFlight).toBe(bound);
    for (let i = 0; i < 10; i++) {
      source.release(0);
      await settle();
    }
    expect(source.starts.length).toBe(bound + 10);

    const reads = source.dueLanesCalls;
    const [late] = source.add('tenant-b|send', 'taxauth:test', 1);
    ringWorkBell();
    await eventually(() => source.dueLanesCalls > reads, 'the pump to read the lanes again after the ring');
    await settle();
    const before = source.starts.length;
    while (!source.starts.includes(late!)) {
      expect(source.starts.length - before).toBeLessThanOrEqual(bound + 1);
      source.release(0);
      await settle();
    }
    const aheadOfB = source.starts.slice(before, source.starts.indexOf(late!));
    expect(aheadOfB.length).toBeLessThanOrEqual(1);
    expect(source.unclaimed('tenant-a|send')).toBeGreaterThan(900);

    p.stop.abort();
    while (source.held.length) source.release(0);
    await p.running;
  });

  it('wakes on a ring of the bell though its poll interval is huge', async () => {
    const source = new FakeSource({ mode: { ticks: () => 1 } });
    const p = start([source], {});
    await eventually(() => source.dueLanesCalls > 0, 'the first look');
    await settle();
    const [item] = source.add('lane', 'g', 1);
    ringWorkBell();
    await eventually(() => source.performed.get(item!.id) === 1, 'the item rung for to be performed');
    p.stop.abort();
    await p.running;
  });

  // Found by this test: a ring during the read of the lanes (work committed after the read's
  // snapshot) was forgotten until the next poll.
  it('does not lose a ring that arrives while it is reading the lanes', async () => {
    const source = new FakeSource({ mode: { ticks: () => 1 } });
    let item: { id: number } | undefined;
    source.afterRead = async () => {
      if (item) return;
      // Committed after the read's snapshot, rung before the read returns.
      [item] = source.add('lane', 'g', 1);
      ringWorkBell();
      await settle(1);
    };
    const p = start([source], {});
    try {
      await eventually(() => item !== undefined && source.performed.get(item.id) === 1, 'the item rung for during a read', 2_000);
    } finally {
      p.stop.abort();
      await p.running;
    }
  });

  // Found by this test: one turn position for all groups let another group's lanes move a full
  // group's turn past its waiting lanes, so tenant B's one send waited behind A's whole backlog.
  it('keeps a group’s lanes taking turns while lanes of another group are served in between', async () => {
    const source = new FakeSource();
    source.add('tenant-a|send', 'taxauth:test', 50);
    const [b] = source.add('tenant-b|send', 'taxauth:test', 1);
    source.add('endpoint-1', 'webhooks', 50);
    const p = start([source], { 'taxauth:test': 1, webhooks: 1 });
    await settle();
    try {
      // Ends the authority's call, then the webhook's, and so on: each frees one slot of its group.
      for (let i = 0; i < 20 && !source.starts.includes(b!); i++) {
        source.release(source.held.findIndex((h) => h.item.group === (i % 2 === 0 ? 'taxauth:test' : 'webhooks')));
        await settle();
      }
      const sends = source.starts.filter((s) => s.group === 'taxauth:test');
      // Three lanes: B's send must come within three of the group's starts.
      expect(sends.slice(0, 3)).toContain(b);
    } finally {
      p.stop.abort();
      while (source.held.length) source.release(0);
      await p.running;
    }
  });

  it('stops claiming when aborted and returns only after the items in flight end', async () => {
    const source = new FakeSource();
    source.add('lane', 'g', 20);
    const p = start([source], { g: 4 });
    await settle();
    expect(source.inFlight).toBe(4);
    p.stop.abort();
    await settle();
    const claims = source.claimCalls;
    source.release(0);
    await settle();
    expect(p.done()).toBeUndefined();
    expect(source.claimCalls).toBe(claims);
    expect(source.inFlight).toBe(3);
    while (source.held.length) {
      expect(p.done()).toBeUndefined();
      source.release(0);
      await settle();
    }
    expect(await p.running).toEqual({ performed: 4, busy: 0, failed: 0 });
    expect(source.unclaimed('lane')).toBe(16);
  });

  it('halves a group’s bound on busy answers, at most once a second, and gives a slot back per success', async () => {
    const realNow = performance.now.bind(performance);
    let offset = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => realNow() + offset);
    const source = new FakeSource();
    source.add('lane', 'taxauth:test', 500);
    const p = start([source], { 'taxauth:test': 8 });
    const step = async (...feedback: ('ok' | 'busy')[]) => {
      for (const f of feedback) source.release(0, f);
      await settle();
      return source.inFlight;
    };
    await settle();
    expect(source.inFlight).toBe(8);

    // Two busy answers together: one cut, 8 → 4; 6 left in flight, nothing new starts.
    expect(await step('busy', 'busy')).toBe(6);
    // Successes give slots back one by one: 5 allowed with 5 in flight, then 6 allowed (a second cut would leave 4).
    expect(await step('ok')).toBe(5);
    expect(await step('ok')).toBe(6);
    expect(await step('ok')).toBe(7);
    expect(await step('ok')).toBe(8);
    expect(await step('ok')).toBe(8); // back to the configured bound, never above it

    // A second later the authority is busy again: 8 → 4; another busy answer in the same second changes nothing.
    offset += 1_000;
    expect(await step('busy')).toBe(7);
    expect(await step('busy')).toBe(6);
    expect(await step('busy', 'busy')).toBe(4);
    // And another second later: 4 → 2.
    offset += 1_000;
    expect(await step('busy')).toBe(3);
    expect(await step('ok')).toBe(3); // 3 allowed, 2 in flight: one starts
    expect(source.maxInGroup.get('taxauth:test')).toBe(8);

    p.stop.abort();
    while (source.held.length) source.release(0);
    const stats = await p.running;
    expect(stats.busy).toBe(7);
  });

  it('reports a perform that throws to onError and goes on with the rest', async () => {
    const source = new FakeSource({
      name: 'flaky',
      mode: async (item) => {
        await new Promise((r) => setImmediate(r));
        if (item.id === 3) throw new Error('the receiver exploded');
        return 'ok';
      },
    });
    source.add('lane', 'g', 10);
    const errors: [unknown, string][] = [];
    const stats = await pump({ sources: [source], now: clock, bounds: async () => () => 2, untilIdle: true, onError: (e, s) => errors.push([e, s]) });
    expect(stats).toEqual({ performed: 9, busy: 0, failed: 1 });
    expect(errors).toEqual([[expect.objectContaining({ message: 'the receiver exploded' }), 'flaky']]);
    expect(source.performed.size).toBe(10);
  });

  it('performs everything once within the bounds, and passes over no lane more turns than there are lanes (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          bounds: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
          lanes: fc.array(fc.record({ group: fc.nat(), size: fc.integer({ min: 1, max: 25 }) }), { minLength: 1, maxLength: 6 }),
          perLane: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
          order: fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        }),
        async ({ bounds, lanes, perLane, order }) => {
          const source = new FakeSource({ perLane });
          const groupOf = new Map<string, string>();
          lanes.forEach((l, i) => {
            const group = `g${l.group % bounds.length}`;
            groupOf.set(`lane${i}`, group);
            source.add(`lane${i}`, group, l.size);
          });
          const bound: Record<string, number> = Object.fromEntries(bounds.map((b, i) => [`g${i}`, b]));
          const total = lanes.reduce((n, l) => n + l.size, 0);
          const p = start([source], bound, { untilIdle: true });

          const passed = new Map<string, number>();
          let worst = 0;
          // One step: `release` ends one perform (or none, for the first turn), then the pump does what it can.
          const step = async (release: () => void) => {
            const eligible = [...groupOf.keys()].filter((l) => source.unclaimed(l) > 0 && (source.inLane.get(l) ?? 0) < (perLane ?? Infinity));
            const from = source.starts.length;
            release();
            await settle();
            const started = new Set(source.starts.slice(from).map((s) => s.lane));
            for (const lane of eligible) {
              if (started.has(lane)) passed.set(lane, 0);
              else if ([...started].some((other) => groupOf.get(other) === groupOf.get(lane))) {
                const n = (passed.get(lane) ?? 0) + 1;
                passed.set(lane, n);
                worst = Math.max(worst, n);
              }
            }
          };
          await step(() => {});
          for (let i = 0; source.held.length > 0; i++) {
            const index = order[i % order.length]! % source.held.length;
            await step(() => source.release(index));
          }
          await p.running;

          expect(source.starts.length).toBe(total);
          expect([...source.performed.values()].every((n) => n === 1)).toBe(true);
          for (const [group, max] of source.maxInGroup) expect(max).toBeLessThanOrEqual(bound[group]!);
          if (perLane !== undefined) for (const max of source.maxInLane.values()) expect(max).toBeLessThanOrEqual(perLane);
          expect(worst).toBeLessThanOrEqual(lanes.length);
          expect(p.done()).toEqual({ performed: total, busy: 0, failed: 0 });
        },
      ),
      { seed: 230423, numRuns: 100 },
    );
  });
});
