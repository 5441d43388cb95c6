import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { createWebhook } from '../../src/engine/webhooks/endpoints.js';
import { DEFAULT_JOBS, startScheduler } from '../../src/jobs/scheduler.js';
import { seedTenant, testDataDir } from '../helpers.js';
import { allowLoopback, emitEvent, startReceiver } from './harness.js';

describe('the webhook jobs', () => {
  it('are among the jobs `ecf serve` runs, and the delivery job sends what is due from a real data directory', async () => {
    expect(DEFAULT_JOBS.map((j) => [j.name, j.interval])).toEqual(expect.arrayContaining([['webhooks', '5s'], ['webhook-purge', '6h']]));
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    try {
      const { tenant } = await seedTenant(engine);
      await allowLoopback(engine);
      const receiver = await startReceiver();
      await createWebhook(engine, tenant.id, { url: receiver.url, events: ['ecf.*'] });
      const event = await emitEvent(engine, tenant.id, 'ecf.accepted');

      const summaries: Record<string, unknown> = {};
      let resolveBoth!: () => void;
      const both = new Promise<void>((r) => (resolveBoth = r));
      const errors: unknown[] = [];
      const scheduler = await startScheduler({
        dataDir,
        jobs: DEFAULT_JOBS.filter((j) => j.name === 'webhooks' || j.name === 'webhook-purge'),
        onMessage: (_job, m) => {
          const { job, summary } = (m ?? {}) as { job?: string; summary?: unknown };
          // The first run of each: under load the purge may start after the 5 s interval has run the delivery job again (finding nothing).
          if (job) summaries[job] ??= summary;
          if (summaries.webhooks && summaries['webhook-purge']) resolveBoth();
        },
        onError: (_job, e) => errors.push(e),
      });
      try {
        await both;
      } finally {
        await scheduler.stop();
      }
      expect(errors).toEqual([]);
      expect(summaries).toEqual({ webhooks: { delivered: 1, retry: 0, dead: 0 }, 'webhook-purge': { removed: 0 } });
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([event.id]);
      const row = await engine.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, lease_owner: null });
    } finally {
      await engine.close();
    }
  });
});
