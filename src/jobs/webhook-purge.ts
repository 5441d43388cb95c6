import { purgeDeliveries } from '../engine/webhooks/index.js';
import { runJob } from './job-runtime.js';

/** The delivery log keeps 30 days: older deliveries are removed. */
await runJob('webhook-purge', async (engine) => purgeDeliveries(engine));
