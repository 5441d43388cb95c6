import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { startBackgroundWork } from '../../../src/engine/background-work.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { DEFAULT_JOBS, startScheduler } from '../../../src/jobs/scheduler.js';
import { seedTenant, testDataDir, waitUntil } from '../../helpers.js';
import { allowLoopback, emitEvent, startReceiver } from './harness.js';

describe('webhooks in `ecf serve`', () => {
  it('are delivered by the background work as soon as their event commits, and cleaned by the periodic store-clean job', async () => {
    expect(DEFAULT_JOBS.map((j) => [j.name, j.interval])).toEqual(expect.arrayContaining([['store-clean', '6h']]));
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    try {
      const { tenant } = await seedTenant(engine);
      await allowLoopback(engine);
      const receiver = await startReceiver();
      await createWebhook(engine, tenant.id, { url: receiver.url, events: ['ecf.*'] });
      // A poll far longer than the test: only the ring of the event's commit can start the delivery.
      const work = await startBackgroundWork(engine, { pollMs: 3_600_000 });
      let event: Awaited<ReturnType<typeof emitEvent>>;
      try {
        event = await emitEvent(engine, tenant.id, 'ecf.accepted');
        await receiver.waitFor(1);
        await waitUntil(async () => (await engine.db.selectFrom('webhook_deliveries').select('status').executeTakeFirstOrThrow()).status === 'delivered', 'the delivery');
      } finally {
        await work.stop();
      }
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([event.id]);
      const row = await engine.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, lease_owner: null });

      let summary: unknown;
      const scheduler = await startScheduler({
        dataDir,
        jobs: DEFAULT_JOBS.filter((j) => j.name === 'store-clean').map((j) => ({ ...j, firstRunAfterMs: 0 })),
        onMessage: (_job, m) => {
          if (typeof m === 'object' && m !== null && 'summary' in m) summary = (m as { summary: unknown }).summary;
        },
      });
      await waitUntil(() => summary !== undefined, 'the store-clean job');
      await scheduler.stop();
      expect(summary).toMatchObject({ ran: true, removed: 0, rules: { 'webhook_deliveries.delivered': 0, events: 0 } });
    } finally {
      await engine.close();
    }
  });
});
