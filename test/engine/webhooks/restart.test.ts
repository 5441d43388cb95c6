import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { deliverDueWebhooks } from '../../../src/engine/webhooks/delivery.js';
import { createWebhook, getWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { seedTenant, testDataDir } from '../../helpers.js';
import { MINUTE, SECOND, allowLoopback, emitEvent, startReceiver, verifyWith, type Received } from './harness.js';

describe('at least once across a restart', () => {
  it('loses no event when the receiver fails half the time and the engine stops in the middle of a delivery', async () => {
    const dataDir = testDataDir();
    const clock = new ManualClock('2026-03-10T14:00:00.000Z');
    let engine: Engine = await openEngine({ dataDir, clock });
    const opened = [engine];
    try {
      const { tenant } = await seedTenant(engine);
      await allowLoopback(engine);

      // Each event's odd-numbered arrivals fail (500), the even ones succeed; one request can be held.
      const arrivals = new Map<string, number>();
      const acknowledged = new Set<string>();
      const answers: number[] = [];
      let holdOne = false;
      let held: string | null = null;
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const receiver = await startReceiver(async (request: Received) => {
        const id = String(request.headers['webhook-id']);
        const n = (arrivals.get(id) ?? 0) + 1;
        arrivals.set(id, n);
        if (holdOne && held === null) {
          held = id;
          await released;
          acknowledged.add(id); // the receiver took it, but the engine that sent it will not live to record that
          answers.push(200);
          return 200;
        }
        if (n % 2 === 1) {
          answers.push(500);
          return 500;
        }
        acknowledged.add(id);
        answers.push(200);
        return 200;
      });
      const { endpoint, secret } = await createWebhook(engine, tenant.id, { url: receiver.url, events: ['*'] });
      const emitted: string[] = [];
      const emitSome = async (count: number) => {
        for (let i = 0; i < count; i++) emitted.push((await emitEvent(engine, tenant.id, 'ecf.accepted', { n: emitted.length })).id);
      };

      await emitSome(8);
      const first = await deliverDueWebhooks(engine, { pollMs: 5 });
      expect(first.map((r) => r.outcome)).toEqual(Array(8).fill('retry'));

      // Ten seconds on: more events, and the engine goes away while one delivery is in flight.
      clock.advance(10 * SECOND);
      await emitSome(4);
      holdOne = true;
      // Caught at once: the dying engine's pump may fail on its closed store while the test still awaits other things.
      const run = deliverDueWebhooks(engine, { pollMs: 5, perEndpoint: 1 }).catch(() => undefined);
      await receiver.waitFor(9);
      expect(held).not.toBeNull();
      await engine.close();
      release();
      await run;

      engine = await openEngine({ dataDir, clock });
      opened.push(engine);
      const inFlight = await engine.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', held!).executeTakeFirstOrThrow();
      expect(inFlight).toMatchObject({ status: 'pending', lease_owner: expect.any(String) }); // never recorded

      await emitSome(5);
      for (let round = 0; round < 30; round++) {
        await deliverDueWebhooks(engine, { pollMs: 5 });
        const left = await engine.db.selectFrom('webhook_deliveries').select('status').where('status', '!=', 'delivered').execute();
        if (left.length === 0) break;
        clock.advance(MINUTE);
      }

      const rows = await engine.db.selectFrom('webhook_deliveries').selectAll().execute();
      expect(rows).toHaveLength(emitted.length);
      expect(rows.filter((r) => r.status !== 'delivered')).toEqual([]);
      expect([...acknowledged].sort()).toEqual([...emitted].sort());
      // The held event (one of the first eight: it had failed once) was taken by the receiver while the engine
      // died, so it was sent again after its lease expired (failing once more, then getting through): at least
      // once, with the same id and body every time.
      expect(arrivals.get(held!)).toBe(4);
      expect(receiver.received.filter((r) => r.headers['webhook-id'] === held).map((r) => r.body).every((b, _, all) => b === all[0])).toBe(true);
      // Every event failed once before it got through, the held one twice: half the answers were failures.
      expect(answers.filter((a) => a === 500)).toHaveLength(emitted.length + 1);
      expect(answers.filter((a) => a === 200)).toHaveLength(emitted.length + 1);
      for (const r of receiver.received) verifyWith(secret, r, new Date(Number(r.headers['webhook-timestamp']) * 1000));
      expect(await getWebhook(engine, tenant.id, endpoint.id)).toMatchObject({ enabled: true, consecutiveFailures: 0 });
    } finally {
      for (const e of opened) await e.close().catch(() => undefined);
    }
  });
});
