const WARM_UP_CALLS = 20;

/**
 * The measuring loop, as a generator that yields once for every call it wants
 * made and returns the best rate. The sync and async drivers step it, so a
 * sync `fn` is timed without the cost of an await per call.
 */
function* calls(rounds: number, ms: number): Generator<void, number, void> {
  for (let i = 0; i < WARM_UP_CALLS; i++) yield;
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = process.hrtime.bigint();
    const end = start + BigInt(ms) * 1_000_000n;
    let now = start;
    while (now < end) {
      yield;
      n++;
      now = process.hrtime.bigint();
    }
    best = Math.max(best, n / (Number(now - start) / 1e9));
  }
  return best;
}

/** Operations per second of `fn`: the best of `rounds` rounds of `ms` each, after a short warm-up. */
export function rate(fn: () => void, rounds = 5, ms = 400): number {
  const loop = calls(rounds, ms);
  for (let step = loop.next(); ; step = loop.next()) {
    if (step.done) return step.value;
    fn();
  }
}

/** The same for an async `fn`, awaited one call at a time. */
export async function rateAsync(fn: () => Promise<unknown>, rounds = 5, ms = 400): Promise<number> {
  const loop = calls(rounds, ms);
  for (let step = loop.next(); ; step = loop.next()) {
    if (step.done) return step.value;
    await fn();
  }
}
