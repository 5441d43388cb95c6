import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import { emit } from '../../../src/engine/events/outbox.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { deliverDueWebhooks } from '../../../src/engine/webhooks/delivery.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { cliFor } from '../../cli-runner.js';
import { seedTenant, testDataDir } from '../../helpers.js';
import { DAY, allowLoopback, emitEvent, startReceiver } from '../webhooks/harness.js';

describe('ecf store clean', () => {
  it('counts with --dry-run and removes nothing, then removes what is old and not a record', async () => {
    const dataDir = testDataDir();
    // The command runs on the real clock: the rows are written 40 days ago.
    const engine = await openEngine({ dataDir, clock: new ManualClock(new Date(Date.now() - 40 * DAY)) });
    const { tenant } = await seedTenant(engine);
    await allowLoopback(engine);
    const receiver = await startReceiver();
    await createWebhook(engine, tenant.id, { url: receiver.url, events: ['*'] });
    await emitEvent(engine, tenant.id);
    await deliverDueWebhooks(engine, { pollMs: 5 });
    await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), null, 'ecf.accepted', { alone: true }));
    const count = async () => ({
      deliveries: (await engine.db.selectFrom('webhook_deliveries').select('id').execute()).length,
      events: (await engine.db.selectFrom('events').select('id').execute()).length,
      tenants: (await engine.db.selectFrom('tenants').select('id').execute()).length,
    });
    expect(await count()).toEqual({ deliveries: 1, events: 2, tenants: 1 });
    const ecf = cliFor(dataDir).ecf;

    const dry = await ecf(['store', 'clean', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n')[0]).toMatch(/^RULE\s+ROWS\s+CUTOFF\s+SETTING$/);
    expect(dry.stdout).toMatch(/^webhook_deliveries\.delivered\s+1\s+\S+-04:00\s+retention\.delivered_webhooks_days$/m);
    expect(dry.stdout).toMatch(/^reception_seeds\s+0\s+\S+\s+\(none: once expired\)$/m);
    expect(dry.stdout).toMatch(/^ecf_fingerprints\s+\d+\s+\S+\s+\(none: 7 days\)$/m);
    // The event still named by the delivery is counted at the run after the delivery goes.
    expect(dry.stdout).toContain('2 row(s) would be removed; nothing was.');
    const dryJson = await ecf(['store', 'clean', '--dry-run', '--json']);
    expect(JSON.parse(dryJson.stdout)).toMatchObject({ cleanable: 2, rules: expect.arrayContaining([expect.objectContaining({ rule: 'events', rows: 1, setting: 'retention.events_days' })]) });
    expect(await count()).toEqual({ deliveries: 1, events: 2, tenants: 1 });

    const run = await ecf(['store', 'clean', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ran: true, removed: 3 });
    expect(await count()).toEqual({ deliveries: 0, events: 0, tenants: 1 });
    const again = await ecf(['store', 'clean']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('0 row(s) removed.');
    await engine.close();
  });
});
