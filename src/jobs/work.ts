import { parentPort } from 'node:worker_threads';
import { runBackgroundWork } from '../engine/work/background.js';
import { ringWorkBell } from '../engine/work/bell.js';
import { listenForWork } from '../engine/work/notify.js';
import { leaseOwnerName } from '../engine/work/queue.js';
import { runJob } from './job-runtime.js';

/**
 * Submission to the authority, ACECF deliveries and webhook deliveries, for
 * as long as the scheduler runs: one pump (engine/work/pump.ts) that the
 * serving thread wakes with a message when it commits new work, and that on
 * PostgreSQL other processes wake through LISTEN/NOTIFY. bree starts it
 * again within its interval if it ever ends. On `cancel` (the scheduler
 * stopping) it stops claiming and lets the calls in flight finish.
 */
await runJob('work', async (engine) => {
  const stop = new AbortController();
  const onMessage = (message: unknown) => {
    if (message === 'cancel') stop.abort();
    else if (message === 'wake') ringWorkBell();
  };
  parentPort?.on('message', onMessage);
  const listener = await listenForWork(engine);
  const counts = { done: 0, rescheduled: 0, delivered: 0, retry: 0, dead: 0 };
  try {
    await runBackgroundWork(engine, {
      owner: leaseOwnerName('job-work'),
      signal: stop.signal,
      onItem: (r) => {
        if (r.result === 'done' || r.result === 'recorded') counts.done++;
        else if (r.result === 'rescheduled') counts.rescheduled++;
      },
      onDelivery: (r) => {
        if (r.outcome === 'delivered' || r.outcome === 'retry' || r.outcome === 'dead') counts[r.outcome]++;
      },
      onError: (error, source) => parentPort?.postMessage({ job: 'work', error: `${source}: ${error instanceof Error ? error.message : String(error)}` }),
    });
  } finally {
    parentPort?.off('message', onMessage);
    await listener.close();
  }
  return counts;
});
