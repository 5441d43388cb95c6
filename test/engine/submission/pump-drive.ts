import type { ManualClock } from '../../../src/engine/clock.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { runBackgroundWork } from '../../../src/engine/background-work.js';
import { pendingWork, type WorkItem } from '../../../src/engine/work/queue.js';

/**
 * Drains the engine's work the way `ecf serve` does (one pump, concurrent,
 * round-robin), but on the injected clock: the pump runs until nothing is
 * due, then the clock moves to the next due item, until no work is left.
 * `afterRound` sees the work left after each round (e.g. to check payloads).
 */
export async function driveBackground(
  engine: Engine,
  clock: ManualClock,
  options: { rounds?: number; afterRound?: (pending: WorkItem[]) => void | Promise<void> } = {},
): Promise<{ rounds: number; errors: unknown[]; busy: number }> {
  const errors: unknown[] = [];
  let busy = 0;
  const limit = options.rounds ?? 500;
  for (let rounds = 1; rounds <= limit; rounds++) {
    busy += (await runBackgroundWork(engine, { owner: 'test-pump', untilIdle: true, onError: (e) => errors.push(e) })).busy;
    const pending = await pendingWork(engine.db);
    await options.afterRound?.(pending);
    if (pending.length === 0) return { rounds, errors, busy };
    const next = Math.min(...pending.map((p) => Date.parse(p.dueAt)));
    clock.set(new Date(Math.max(next, clock.now().getTime())));
  }
  throw new Error(`the work did not drain in ${limit} rounds`);
}
