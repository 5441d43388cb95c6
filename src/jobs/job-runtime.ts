import { parentPort, workerData } from 'node:worker_threads';
import { openEngine } from '../engine/engine.js';
import type { Engine } from '../engine/engine-types.js';

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
export async function runJob(name: string, work: (engine: Engine, stop: AbortSignal) => Promise<unknown>): Promise<void> {
  const { dataDir, checkpointedBy } = workerData as JobData;
  // bree asks a running job to stop with 'cancel' (the scheduler stopping with `ecf serve`) and waits for
  // it to end: a job that works in batches stops after the batch in hand instead of holding the stop up.
  const stop = new AbortController();
  const onMessage = (message: unknown) => {
    if (message === 'cancel') stop.abort();
  };
  const engine = await openEngine({ dataDir, migrate: false, ...(checkpointedBy && { checkpointedBy }) });
  parentPort?.on('message', onMessage);
  try {
    const summary = await work(engine, stop.signal);
    parentPort?.postMessage({ job: name, summary });
  } finally {
    // The last 'message' listener gone, the port no longer keeps the thread alive.
    parentPort?.off('message', onMessage);
    await engine.close();
  }
  parentPort?.postMessage('done');
}
