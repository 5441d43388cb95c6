/**
 * Retry ladders: the waits after the 1st, 2nd, … failure of one piece of
 * durable work. When they run out the work is dead (a webhook delivery), or
 * failed (an ACECF delivery, a submission). Each kind of work names its
 * ladder in its own rules file.
 */
export type Ladder = readonly number[];

/**
 * When to try again after the `failures`-th failure in a row, or null when
 * the ladder is spent: `failures` may be at most ladder.length + 1 attempts.
 */
export function nextRung(ladder: Ladder, failures: number, now: Date): Date | null {
  if (failures < 1 || failures > ladder.length) return null;
  return new Date(now.getTime() + ladder[failures - 1]!);
}

/**
 * The ladder of deliveries to other parties' HTTP endpoints (webhook
 * receivers, other taxpayers' ACECF receivers): 10 s, 1 min, 5 min, 30 min,
 * 2 h, 6 h; the 7th failure is the last.
 */
export const DELIVERY_LADDER_MS: Ladder = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
