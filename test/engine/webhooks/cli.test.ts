import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import { deliverDueWebhooks } from '../../../src/engine/webhooks/delivery.js';
import { DELIVERY_LADDER_MS } from '../../../src/engine/webhooks/rules.js';
import { seedTenant, testDataDir } from '../../helpers.js';
import { allowLoopback, emitEvent, startReceiver } from './harness.js';
import { cliFor } from '../../cli-runner.js';

/** The built `ecf` (npm test builds first), on the test's data directory. */
async function ecf(dataDir: string, args: string[], json = true) {
  const r = await cliFor(dataDir).ecf([...args, ...(json ? ['--json'] : [])]);
  return { ...r, json: () => JSON.parse(r.stdout) };
}

describe('ecf webhook list | add | remove | deliveries | retry | ping', () => {
  it('manages endpoints, pings, shows the delivery log and retries a dead delivery', async () => {
    const dataDir = testDataDir();
    const setup = await openEngine({ dataDir });
    const { tenant } = await seedTenant(setup);
    await allowLoopback(setup);
    await setup.close();
    const receiver = await startReceiver();

    const added = await ecf(dataDir, ['webhook', 'add', receiver.url, '--event', 'ecf.*', '--event', 'sequence.low', '--description', 'ERP', '--tenant', tenant.rnc]);
    expect(added.code, added.stderr).toBe(0);
    const { endpoint, secret } = added.json();
    expect(endpoint).toMatchObject({ tenantId: tenant.id, url: receiver.url, events: ['ecf.*', 'sequence.low'], description: 'ERP', enabled: true });
    expect(secret).toMatch(/^whsec_/);

    const human = await ecf(dataDir, ['webhook', 'add', receiver.url.replace('/ecf', '/two'), '--event', '*'], false);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/Signing secret \(shown only now; keep it in the receiver\):\nwhsec_\S+\n/);

    const list = await ecf(dataDir, ['webhook', 'list']);
    expect(list.json().map((e: { id: string }) => e.id)).toContain(endpoint.id);
    expect(list.stdout).not.toContain(secret);
    const table = await ecf(dataDir, ['webhook', 'list'], false);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+URL\s+EVENTS\s+ENABLED\s+FAILURES\s+DISABLEDREASON$/);

    const ping = await ecf(dataDir, ['webhook', 'ping', endpoint.id]);
    expect(ping.code, ping.stderr).toBe(0);
    expect(ping.json()).toEqual({ delivered: true, statusCode: 200, error: null });
    expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>)).toMatchObject({ type: 'webhook.ping' });

    // A dead delivery, made with the engine and a clock that moves through the ladder.
    receiver.handler = () => 500;
    const clock = new ManualClock(new Date());
    const engine = await openEngine({ dataDir, clock });
    const event = await emitEvent(engine, tenant.id, 'ecf.accepted');
    await deliverDueWebhooks(engine, { pollMs: 5 });
    for (const wait of DELIVERY_LADDER_MS) {
      clock.advance(wait);
      await deliverDueWebhooks(engine, { pollMs: 5 });
    }
    await engine.close();

    const log = await ecf(dataDir, ['webhook', 'deliveries', endpoint.id]);
    expect(log.code, log.stderr).toBe(0);
    const [dead] = log.json().items;
    expect(dead).toMatchObject({ eventId: event.id, eventType: 'ecf.accepted', status: 'dead', attempts: 7, lastStatusCode: 500 });
    const logTable = await ecf(dataDir, ['webhook', 'deliveries', endpoint.id], false);
    expect(logTable.stdout).toMatch(new RegExp(`${dead.id}\\s+ecf\\.accepted\\s+dead\\s+7\\s+500`));

    const retried = await ecf(dataDir, ['webhook', 'retry', endpoint.id, dead.id]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.json()).toMatchObject({ id: dead.id, status: 'pending', attempts: 0 });
    const again = await ecf(dataDir, ['webhook', 'retry', endpoint.id, dead.id]);
    expect(again.code).toBe(3);
    expect(again.json().error.code).toBe('WebhookDelivery.NotDead');

    const refused = await ecf(dataDir, ['webhook', 'add', 'http://10.1.1.1/hook', '--event', 'ecf.voided']);
    expect(refused.code).toBe(2);
    expect(refused.json().error).toMatchObject({ code: 'Validation.Failed', errors: [{ path: 'events[0]', code: 'Webhook.UnknownEventType' }] });
    const private_ = await ecf(dataDir, ['webhook', 'add', 'http://10.1.1.1/hook', '--event', '*'], false);
    expect(private_.code).toBe(2);
    expect(private_.stderr).toContain('url: 10.1.1.1 is in 10.0.0.0/8 (private)');

    const removed = await ecf(dataDir, ['webhook', 'remove', endpoint.id]);
    expect(removed.json()).toEqual({ id: endpoint.id, removed: true });
    const gone = await ecf(dataDir, ['webhook', 'ping', endpoint.id]);
    expect(gone.code).toBe(3);
    expect(gone.json().error.code).toBe('Webhook.NotFound');
    expect((await ecf(dataDir, ['webhook', 'list'])).json().map((e: { id: string }) => e.id)).not.toContain(endpoint.id);
  }, 120_000);
});
