import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { runBackgroundWork } from '../../../src/engine/background-work.js';
import { deliverDueWebhooks } from '../../../src/engine/webhooks/delivery.js';
import { createWebhook, getWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { DISABLE_AFTER_FAILURES, PER_ENDPOINT_CONCURRENCY } from '../../../src/engine/webhooks/rules.js';
import { seedTenant, testEngine, waitUntil } from '../../helpers.js';
import { allowLoopback, emitEvent, startReceiver, type Answer } from './harness.js';

/**
 * An endpoint that always fails, with attempts overlapping: the receiver
 * holds every request and answers the oldest only when the fourth arrives,
 * so each failure is recorded while three more attempts are in flight. The
 * endpoint must be disabled at exactly DISABLE_AFTER_FAILURES, the three
 * still in flight then must not push the count past it, and each of them
 * must still be recorded as its delivery's attempt.
 */
const runners: [string, (engine: Engine) => Promise<unknown>][] = [
  ['deliverDueWebhooks', (engine) => deliverDueWebhooks(engine, { perEndpoint: 4, pollMs: 5 })],
  ['runBackgroundWork', (engine) => runBackgroundWork(engine, { untilIdle: true, pollMs: 5 })],
];

describe.each(runners)('an endpoint failing with attempts in flight (%s)', (_name, run) => {
  it(`is disabled with exactly ${DISABLE_AFTER_FAILURES} consecutive failures, and the attempts in flight then still count for their deliveries`, async () => {
    expect(PER_ENDPOINT_CONCURRENCY).toBe(4);
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await allowLoopback(engine);
    const held: ((answer: Answer) => void)[] = [];
    const receiver = await startReceiver(
      () =>
        new Promise<Answer>((resolve) => {
          held.push(resolve);
          if (held.length >= 4) held.shift()!(500);
        }),
    );
    const { endpoint } = await createWebhook(engine, tenant.id, { url: receiver.url, events: ['*'] });
    for (let i = 0; i < 40; i++) await emitEvent(engine, tenant.id, 'ecf.accepted', { i });

    const delivering = run(engine);
    const disabled = async () => !(await getWebhook(engine, tenant.id, endpoint.id)).enabled;
    await waitUntil(disabled, 'the endpoint to be disabled');
    // The three attempts that were in flight when it was disabled end now, failing too.
    await waitUntil(() => held.length === 3, 'the attempts in flight');
    while (held.length) held.shift()!(500);
    await delivering;

    const after = await getWebhook(engine, tenant.id, endpoint.id);
    expect(after).toMatchObject({ enabled: false, disabledReason: 'consecutive_failures', consecutiveFailures: DISABLE_AFTER_FAILURES });
    expect(receiver.received).toHaveLength(DISABLE_AFTER_FAILURES + 3);

    const rows = await engine.db
      .selectFrom('webhook_deliveries')
      .select(['attempts', 'status', 'last_status_code', 'lease_owner'])
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(rows).toHaveLength(40);
    const tried = rows.filter((r) => r.attempts > 0);
    expect(tried).toHaveLength(DISABLE_AFTER_FAILURES + 3);
    expect(tried.every((r) => r.attempts === 1 && r.status === 'pending' && r.last_status_code === 500 && r.lease_owner === null)).toBe(true);
    expect(rows.filter((r) => r.attempts === 0).every((r) => r.status === 'pending' && r.lease_owner === null)).toBe(true);
  });
});
