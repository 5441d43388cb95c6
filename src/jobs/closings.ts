import { writeDueClosings } from '../engine/journal/index.js';
import { runJob } from './job-runtime.js';

/** Writes the journal's day and month closings of every period that has ended (a bounded number per tenant and run). */
await runJob('closings', async (engine, stop) => {
  const report = await writeDueClosings(engine, { signal: stop });
  return { written: report.written.length, more: report.more, failed: report.failed.length };
});
