/** Operations per second of `fn`: the best of `rounds` rounds of `ms` each, after a short warm-up. */
export function rate(fn: () => void, rounds = 5, ms = 400): number {
  for (let i = 0; i < 20; i++) fn();
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = process.hrtime.bigint();
    const end = start + BigInt(ms) * 1_000_000n;
    let now = start;
    while (now < end) {
      fn();
      n++;
      now = process.hrtime.bigint();
    }
    best = Math.max(best, n / (Number(now - start) / 1e9));
  }
  return best;
}

/** The same for an async `fn`, awaited one call at a time. */
export async function rateAsync(fn: () => Promise<unknown>, rounds = 5, ms = 400): Promise<number> {
  for (let i = 0; i < 20; i++) await fn();
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = process.hrtime.bigint();
    const end = start + BigInt(ms) * 1_000_000n;
    let now = start;
    while (now < end) {
      await fn();
      n++;
      now = process.hrtime.bigint();
    }
    best = Math.max(best, n / (Number(now - start) / 1e9));
  }
  return best;
}
