import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { createWebhook } from '../../src/engine/webhooks/endpoints.js';
import { DEFAULT_JOBS, startScheduler } from '../../src/jobs/scheduler.js';
import { seedTenant, testDataDir, waitUntil as until } from '../helpers.js';
import { allowLoopback, emitEvent, startReceiver } from './harness.js';

describe('the webhook jobs', () => {
  it('are among the jobs `ecf serve` runs, and the work job delivers what is due from a real data directory', async () => {
    expect(DEFAULT_JOBS.map((j) => [j.name, j.interval])).toEqual(expect.arrayContaining([['work', '5s'], ['webhook-purge', '6h']]));
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    try {
      const { tenant } = await seedTenant(engine);
      await allowLoopback(engine);
      const receiver = await startReceiver();
      await createWebhook(engine, tenant.id, { url: receiver.url, events: ['ecf.*'] });
      const event = await emitEvent(engine, tenant.id, 'ecf.accepted');

      const summaries: Record<string, unknown> = {};
      const errors: unknown[] = [];
      const scheduler = await startScheduler({
        dataDir,
        jobs: DEFAULT_JOBS.filter((j) => j.name === 'work' || j.name === 'webhook-purge'),
        onMessage: (_job, m) => {
          const { job, summary } = (m ?? {}) as { job?: string; summary?: unknown };
          if (job && summary) summaries[job] ??= summary;
        },
        onError: (_job, e) => errors.push(e),
      });
      try {
        // The work job runs until the scheduler stops; it reports what it did then.
        await receiver.waitFor(1);
        await until(async () => (await engine.db.selectFrom('webhook_deliveries').select('status').executeTakeFirstOrThrow()).status === 'delivered', 'the delivery');
      } finally {
        await scheduler.stop();
      }
      expect(errors).toEqual([]);
      expect(summaries).toEqual({ work: { done: 0, rescheduled: 0, delivered: 1, retry: 0, dead: 0 }, 'webhook-purge': { removed: 0 } });
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([event.id]);
      const row = await engine.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, lease_owner: null });
    } finally {
      await engine.close();
    }
  });
});
