/**
 * The job scheduler's heartbeat, kept in this process's memory.
 *
 * Why per process and not in the store: readiness answers "can this node do
 * its work", and the scheduler that matters is the one in this process. A
 * heartbeat shared through the store would let another node's live scheduler
 * hide this one's dead one, and would make a node started with
 * `ecf serve --no-jobs` (an API-only node) depend on some other node's jobs.
 * It also costs no store write per beat. The price: `ecf doctor`, a process of
 * its own, cannot see it; it is a check of the serving process only (/readyz).
 *
 * A beat is recorded when the scheduler starts and each time it creates or
 * ends a job's worker, so the beat is "bree's timers still fire", not only
 * "the event loop turns" (which /healthz already shows). Times come from the
 * `now` the scheduler was given (the engine's clock in tests), so tests move
 * time instead of sleeping.
 */
export interface SchedulerBeat {
  /** Records a beat at this instant. */
  beat(at: Date): void;
  /** The scheduler stopped: its heartbeat no longer counts. */
  stop(): void;
}

export interface SchedulerPulse {
  readonly startedAt: Date;
  readonly lastBeatAt: Date;
  /** Past this long without a beat, the scheduler is taken for dead. */
  readonly staleAfterMs: number;
}

interface Entry {
  startedAt: Date;
  lastBeatAt: Date;
  readonly staleAfterMs: number;
}

const running = new Set<Entry>();

/** A scheduler starts beating; several in one process (tests) are each checked. */
export function registerScheduler(startedAt: Date, staleAfterMs: number): SchedulerBeat {
  const entry: Entry = { startedAt, lastBeatAt: startedAt, staleAfterMs };
  running.add(entry);
  return {
    beat: (at) => {
      if (at.getTime() > entry.lastBeatAt.getTime()) entry.lastBeatAt = at;
    },
    stop: () => void running.delete(entry),
  };
}

/** The schedulers running in this process; empty when jobs are off here (`ecf serve --no-jobs`, the CLI). */
export function schedulerPulses(): SchedulerPulse[] {
  return [...running].map((e) => ({ startedAt: e.startedAt, lastBeatAt: e.lastBeatAt, staleAfterMs: e.staleAfterMs }));
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** What an interval bree takes as prose ('every day at 6:00 am') is assumed to be at most. */
const PROSE_INTERVAL_MS = 86_400_000;

/** A job interval as bree takes it (ms, or '15m', '6h'), in ms. */
export function intervalMs(interval: number | string): number {
  if (typeof interval === 'number') return interval;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/i.exec(interval);
  return m ? Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]! : PROSE_INTERVAL_MS;
}

/** Slack for a job's worker to start and end (a worker loads the engine's modules). */
const BEAT_SLACK_MS = 60_000;

/**
 * Two of the most frequent job's intervals and a minute (plus the latest first
 * run): one late run is tolerated, two missed ones are not. With the default
 * jobs (the shortest every 15 minutes) that is 31 minutes.
 */
export function staleAfterMsFor(jobs: readonly { interval: number | string; firstRunAfterMs?: number }[]): number {
  if (jobs.length === 0) return PROSE_INTERVAL_MS;
  const shortest = Math.min(...jobs.map((j) => intervalMs(j.interval)));
  const firstRun = Math.max(...jobs.map((j) => j.firstRunAfterMs ?? 0));
  return Math.max(2 * shortest, firstRun) + BEAT_SLACK_MS;
}
