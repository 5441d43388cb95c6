import { parentPort, workerData } from 'node:worker_threads';
import { openEngine, type Engine } from '../engine/engine.js';

export interface JobData {
  readonly dataDir: string;
  /** The server's WAL checkpointer signal: job threads leave checkpoints to it (OpenEngineOptions.checkpointedBy). */
  readonly checkpointedBy?: Int32Array;
}

/**
 * The body of every job file: open the store named by the scheduler, do one
 * round of work, report a summary to the scheduler, close. bree is only the
 * clock; the work itself is an engine function.
 */
export async function runJob(name: string, work: (engine: Engine) => Promise<unknown>): Promise<void> {
  const { dataDir, checkpointedBy } = workerData as JobData;
  const engine = await openEngine({ dataDir, migrate: false, ...(checkpointedBy && { checkpointedBy }) });
  try {
    const summary = await work(engine);
    parentPort?.postMessage({ job: name, summary });
  } finally {
    await engine.close();
  }
  parentPort?.postMessage('done');
}
