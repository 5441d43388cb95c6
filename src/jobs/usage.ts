import { evaluateUsage } from '../engine/limits/index.js';
import { runJob } from './job-runtime.js';

/** Closes ended billing periods (billing.period_closed) and records the current one's peaks and thresholds. */
await runJob('usage', async (engine) => ({ emitted: (await evaluateUsage(engine)).length }));
