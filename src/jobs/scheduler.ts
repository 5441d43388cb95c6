import { fileURLToPath, pathToFileURL } from 'node:url';
import { extname, join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import Bree from 'bree';
import type { JobData } from './job-runtime.js';

export interface JobSpec {
  readonly name: string;
  /** Absolute path of the job file. */
  readonly path: string;
  /** ms, or a bree interval string ('5s', 'every day at 6:00 am'). */
  readonly interval: number | string;
}

const here = fileURLToPath(new URL('.', import.meta.url));
/** Running from TypeScript sources (tests, development): workers load .ts through tsx. */
const ext = extname(fileURLToPath(import.meta.url));

export const jobFile = (name: string): string => join(here, `${name}${ext}`);

/** The appliance's jobs. Later issues add the authority poller, notices, alerts. */
export const DEFAULT_JOBS: readonly JobSpec[] = [
  // Runs until the scheduler stops; the interval only starts it again if it ever ends.
  { name: 'work', path: jobFile('work'), interval: '5s' },
  { name: 'webhook-purge', path: jobFile('webhook-purge'), interval: '6h' },
  // Notices are idempotent, so running more often than daily only makes them timelier.
  { name: 'certificate-notices', path: jobFile('certificate-notices'), interval: '6h' },
  { name: 'sequence-notices', path: jobFile('sequence-notices'), interval: '6h' },
  // The contract evaluates alerts every 15 minutes.
  { name: 'alerts', path: jobFile('alerts'), interval: '15m' },
  // Billing periods close within 15 minutes of the month's end (Dominican time).
  { name: 'usage', path: jobFile('usage'), interval: '15m' },
];

export interface SchedulerOptions {
  readonly dataDir: string;
  readonly jobs?: readonly JobSpec[];
  readonly onMessage?: (job: string, message: unknown) => void;
  readonly onError?: (job: string, error: unknown) => void;
}

export interface Scheduler {
  /** Tells a running job to look for work now (the work job's pump), or starts it if it is not running. */
  wake(name: string): void;
  stop(): Promise<void>;
}

/** bree, taught to start TypeScript job files (tests, development) through tsx. */
class JobBree extends Bree {
  override createWorker = (filename: string, options: Partial<WorkerOptions>): Worker => {
    if (!filename.endsWith('.ts')) return new Worker(filename, options);
    const url = JSON.stringify(pathToFileURL(filename).href);
    return new Worker(`import('tsx/esm/api').then((api) => api.tsImport(${url}, ${url}))`, { ...options, eval: true });
  };
}

/** Starts bree with each job on its interval; every job runs once at start. */
export async function startScheduler(options: SchedulerOptions): Promise<Scheduler> {
  const jobs = options.jobs ?? DEFAULT_JOBS;
  const workerData: JobData = { dataDir: options.dataDir };
  const bree = new JobBree({
    root: false,
    logger: false,
    doRootCheck: false,
    acceptedExtensions: ['.js', '.mjs', '.ts'],
    jobs: jobs.map((j) => ({
      name: j.name,
      path: j.path,
      interval: j.interval,
      timeout: 0,
      worker: { workerData },
    })),
    workerMessageHandler: (m: { name: string; message: unknown }) => options.onMessage?.(m.name, m.message),
    errorHandler: (error: unknown, meta: { name?: string }) => options.onError?.(meta?.name ?? '?', error),
  });
  // bree.start() returns before every job's worker exists, and a stop in that gap would miss the
  // worker that appears after it (a long-running job would then never be told to stop).
  const pending = new Set(jobs.map((j) => j.name));
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
  await bree.start();
  await allCreated;
  let stopping = false;
  return {
    wake: (name) => {
      if (stopping) return;
      const worker = bree.workers.get(name);
      if (worker) worker.postMessage('wake');
      else void bree.run(name).catch((error: unknown) => options.onError?.(name, error));
    },
    stop: () => {
      stopping = true;
      return bree.stop();
    },
  };
}
