import { deliverDueWebhooks } from '../engine/webhooks/delivery.js';
import { leaseOwnerName } from '../engine/work/queue.js';
import { runJob } from './job-runtime.js';

/**
 * Delivers due webhook deliveries, one lane per endpoint, until nothing is
 * due; after a minute it stops claiming and lets the attempts in flight end.
 * bree does not start the job again while a run is still going.
 */
await runJob('webhooks', async (engine) => {
  const results = await deliverDueWebhooks(engine, { owner: leaseOwnerName('job-webhooks'), budgetMs: 60_000 });
  const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
  return { delivered: count('delivered'), retry: count('retry'), dead: count('dead') };
});
