import { fileURLToPath, pathToFileURL } from 'node:url';
import { extname, join } from 'node:path';
import type { Worker, WorkerOptions } from 'node:worker_threads';
import Bree from 'bree';
import type { JobData } from './job-runtime.js';
import { registerScheduler, staleAfterMsFor } from '../engine/health/index.js';
import { startModuleWorker } from '../engine/module-worker.js';

export interface JobSpec {
  readonly name: string;
  /** Absolute path of the job file. */
  readonly path: string;
  /** ms, or a bree interval string ('5s', 'every day at 6:00 am'). */
  readonly interval: number | string;
  /** The first run comes this long after the start; absent or 0, at once. */
  readonly firstRunAfterMs?: number;
}

const here = fileURLToPath(new URL('.', import.meta.url));
/** Running from TypeScript sources (tests, development): workers load .ts through tsx. */
const ext = extname(fileURLToPath(import.meta.url));

export const jobFile = (name: string): string => join(here, `${name}${ext}`);

/**
 * The appliance's periodic jobs. Each runs in a worker thread of its own,
 * which costs the engine's module graph (about 50 MB) while it runs; their
 * first runs are spread 10 s apart, and as every interval is a multiple of
 * 15 minutes they stay apart, so at most one is alive at a time. Submission
 * and deliveries are not here: `ecf serve` runs them continuously
 * (engine/background-work.ts).
 */
export const DEFAULT_JOBS: readonly JobSpec[] = [
  // Cleans what is not a record (the delivery log, old events, expired receiver credentials) in small batches.
  { name: 'store-clean', path: jobFile('store-clean'), interval: '6h', firstRunAfterMs: 10_000 },
  // Notices are idempotent, so running more often than daily only makes them timelier.
  { name: 'certificate-notices', path: jobFile('certificate-notices'), interval: '6h', firstRunAfterMs: 20_000 },
  { name: 'sequence-notices', path: jobFile('sequence-notices'), interval: '6h', firstRunAfterMs: 30_000 },
  // The contract evaluates alerts every 15 minutes.
  { name: 'alerts', path: jobFile('alerts'), interval: '15m', firstRunAfterMs: 40_000 },
  // Billing periods close within 15 minutes of the month's end (Dominican time).
  { name: 'usage', path: jobFile('usage'), interval: '15m', firstRunAfterMs: 50_000 },
  // The journal's closings, written within 15 minutes of a Dominican day's end (after a minute's grace).
  { name: 'closings', path: jobFile('closings'), interval: '15m', firstRunAfterMs: 60_000 },
];

export interface SchedulerOptions {
  readonly dataDir: string;
  /** The serving engine's checkpointer signal (Engine.restartSignal), shared with the job threads. */
  readonly checkpointedBy?: Int32Array;
  readonly jobs?: readonly JobSpec[];
  readonly onMessage?: (job: string, message: unknown) => void;
  readonly onError?: (job: string, error: unknown) => void;
  /** The time its heartbeat is recorded in (/readyz); the engine's clock in tests. Default: the system's. */
  readonly now?: () => Date;
}

export interface Scheduler {
  stop(): Promise<void>;
}

/** bree, taught to start TypeScript job files (tests, development) through tsx. */
class JobBree extends Bree {
  override createWorker = (filename: string, options: Partial<WorkerOptions>): Worker => startModuleWorker(pathToFileURL(filename), options);
}

/** Starts bree with each job on its interval, the first run at start or after the job's firstRunAfterMs. */
export async function startScheduler(options: SchedulerOptions): Promise<Scheduler> {
  const jobs = options.jobs ?? DEFAULT_JOBS;
  const workerData: JobData = { dataDir: options.dataDir, ...(options.checkpointedBy && { checkpointedBy: options.checkpointedBy }) };
  const bree = new JobBree({
    root: false,
    logger: false,
    doRootCheck: false,
    acceptedExtensions: ['.js', '.mjs', '.ts'],
    jobs: jobs.map((j) => ({
      name: j.name,
      path: j.path,
      interval: j.interval,
      timeout: j.firstRunAfterMs ?? 0,
      worker: { workerData },
    })),
    workerMessageHandler: (m: { name: string; message: unknown }) => options.onMessage?.(m.name, m.message),
    errorHandler: (error: unknown, meta: { name?: string }) => options.onError?.(meta?.name ?? '?', error),
  });
  // bree.start() returns before the workers of the jobs that run at once exist; a stop in that
  // gap would miss a worker that appears after it and then wait for it without telling it to stop.
  const pending = new Set(jobs.filter((j) => !j.firstRunAfterMs).map((j) => j.name));
  const allCreated = new Promise<void>((resolve) => {
    const created = (name: string) => {
      pending.delete(name);
      if (pending.size === 0) {
        bree.off('worker created', created);
        resolve();
      }
    };
    bree.on('worker created', created);
    if (pending.size === 0) resolve();
  });
  // The heartbeat /readyz reads: kept per process (engine/health/heartbeat.ts says why), beaten
  // whenever bree's timers make or end a worker, so a scheduler whose timers stopped goes stale.
  const now = options.now ?? (() => new Date());
  const heartbeat = registerScheduler(now(), staleAfterMsFor(jobs));
  const beat = () => heartbeat.beat(now());
  bree.on('worker created', beat);
  bree.on('worker deleted', beat);
  await bree.start();
  await allCreated;
  return {
    stop: async () => {
      heartbeat.stop();
      await bree.stop();
    },
  };
}
