import { leaseOwnerName } from '../engine/work/queue.js';
import { runDueWork } from '../engine/work/run.js';
import { WORK_HANDLERS } from '../engine/work/handlers.js';
import { runJob } from './job-runtime.js';

/** Claims due items of every registered kind and performs them, batch after batch. */
await runJob('work', async (engine) => {
  const owner = leaseOwnerName('job-work');
  let done = 0;
  let rescheduled = 0;
  for (let round = 0; round < 50; round++) {
    const results = await runDueWork(engine, { owner, handlers: WORK_HANDLERS });
    if (results.length === 0) break;
    done += results.filter((r) => r.result === 'done').length;
    rescheduled += results.filter((r) => r.result === 'rescheduled').length;
    done += results.filter((r) => r.result === 'recorded').length;
  }
  return { done, rescheduled };
});
