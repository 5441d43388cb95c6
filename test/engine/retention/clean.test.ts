import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { emit } from '../../../src/engine/events/outbox.js';
import { keepCredential } from '../../../src/engine/reception/receiver-credentials.js';
import { cleanStore, countCleanable, type CleanSummary } from '../../../src/engine/retention/clean.js';
import { STORE_TABLES } from '../../../src/engine/retention/inventory.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { EngineError } from '../../../src/engine/errors.js';
import { deliverDueWebhooks, retryDelivery } from '../../../src/engine/webhooks/delivery.js';
import { createWebhook, updateWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { DELIVERY_LADDER_MS } from '../../../src/engine/webhooks/rules.js';
import { changedTables, snapshotStore } from '../../http/fuzz/snapshot.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';
import { DAY, MINUTE, allowLoopback, emitEvent, startReceiver } from '../webhooks/harness.js';

const NO_PAUSE = { pauseMs: 0 };
const CLEANED = new Set(Object.entries(STORE_TABLES).filter(([, v]) => v.class === 'cleaned').map(([t]) => t));

/** Rows removed per rule, only the rules that removed any. */
const removedBy = (s: CleanSummary) => Object.fromEntries(s.rules.filter((r) => r.rows > 0).map((r) => [r.rule, r.rows]));

const ids = async (engine: Engine, table: 'events' | 'webhook_deliveries' | 'reception_seeds') =>
  (await engine.db.selectFrom(table).select(table === 'reception_seeds' ? 'value_hash as id' : 'id').execute()).map((r) => r.id).sort();

/** Delivers until every due delivery has been tried, moving the clock along the whole ladder: failing ones end dead. */
async function deliverThroughTheLadder(engine: Engine & { clock: { advance(ms: number): void } }) {
  await deliverDueWebhooks(engine, { pollMs: 5 });
  for (const wait of DELIVERY_LADDER_MS) {
    engine.clock.advance(wait);
    await deliverDueWebhooks(engine, { pollMs: 5 });
  }
}

describe('the store-clean job', () => {
  it('removes only what is old and not a record, each after its setting, and a second run is a no-op', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    // Records: an issued e-CF (its document, counters, and the pending work that will send it).
    await issueEcf(engine, tenant.id, { idempotencyKey: 'retention-1', payload: invoice31() });
    await allowLoopback(engine);
    const ok = await startReceiver(() => 200);
    const failing = await startReceiver(() => 500);
    const delivered = await createWebhook(engine, tenant.id, { url: ok.url, events: ['*'] });
    const dead = await createWebhook(engine, tenant.id, { url: failing.url, events: ['*'] });
    const paused = await createWebhook(engine, tenant.id, { url: ok.url, events: ['*'] });

    const t0 = engine.clock.now().getTime();
    const toAll = await emitEvent(engine, tenant.id, 'ecf.accepted', { n: 1 }); // delivered, dead, and pending at the paused endpoint
    await updateWebhook(engine, tenant.id, paused.endpoint.id, { enabled: false });
    const toTwo = await emitEvent(engine, tenant.id, 'ecf.accepted', { n: 2 }); // delivered and dead only
    const bare = (await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), null, 'ecf.accepted', { n: 3 })))!; // no delivery
    const fact = (await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), null, 'ecf.accepted', { n: 4 }, { factKey: 'told-once' })))!;
    await deliverThroughTheLadder(engine);
    const tDead = engine.clock.now().getTime();
    const deliveries = await engine.db.selectFrom('webhook_deliveries').select(['id', 'endpoint_id', 'status', 'updated_at']).execute();
    const at = (endpoint: string) => deliveries.filter((d) => d.endpoint_id === endpoint);
    expect(at(delivered.endpoint.id).map((d) => [d.status, d.updated_at])).toEqual([['delivered', new Date(t0).toISOString()], ['delivered', new Date(t0).toISOString()]]);
    expect(at(dead.endpoint.id).map((d) => [d.status, d.updated_at])).toEqual([['dead', new Date(tDead).toISOString()], ['dead', new Date(tDead).toISOString()]]);
    expect(at(paused.endpoint.id).map((d) => d.status)).toEqual(['pending']);

    // Receiver credentials: a live seed and token, and an expired seed.
    const now = engine.clock.now();
    await inTransaction(engine.db, async (tx) => {
      await keepCredential(tx, 'reception_seeds', tenant.id, 'live-seed', now, new Date(now.getTime() + 5 * MINUTE), 10);
      await keepCredential(tx, 'reception_tokens', tenant.id, 'live-token', now, new Date(now.getTime() + 60 * MINUTE), 10);
      await keepCredential(tx, 'reception_seeds', tenant.id, 'spent-seed', now, new Date(now.getTime() - 1), 10);
    });
    const start = await snapshotStore(engine);
    for (const t of ['ecf', 'ecf_documents', 'work', 'certificates', 'sequence_ranges', 'tenants']) expect(start.tables.get(t), t).not.toBe('');

    // Now: only the expired seed goes.
    expect((await countCleanable(engine)).cleanable).toBe(1);
    expect(removedBy(await cleanStore(engine, NO_PAUSE))).toEqual({ reception_seeds: 1 });
    expect(await ids(engine, 'reception_seeds')).toHaveLength(1);

    // 30 days after the delivered ones' last attempt they stay; a millisecond later they go, with the event nothing names.
    engine.clock.set(new Date(t0 + 30 * DAY));
    expect(removedBy(await cleanStore(engine, NO_PAUSE))).toEqual({ reception_seeds: 1, reception_tokens: 1, ecf_fingerprints: 1 });
    engine.clock.advance(1);
    expect((await countCleanable(engine)).rules.filter((r) => r.rows > 0).map((r) => [r.rule, r.rows])).toEqual([['webhook_deliveries.delivered', 2], ['events', 1]]);
    expect(removedBy(await cleanStore(engine, NO_PAUSE))).toEqual({ 'webhook_deliveries.delivered': 2, events: 1 });
    expect(await ids(engine, 'events')).toEqual([toAll.id, toTwo.id, fact.id].sort());
    expect(bare.id).not.toBe(fact.id);

    // Dead ones stay 90 days; then they go, and so does the event only they named. The pending delivery and its event stay.
    engine.clock.set(new Date(tDead + 90 * DAY));
    expect(removedBy(await cleanStore(engine, NO_PAUSE))).toEqual({});
    engine.clock.advance(1);
    expect(removedBy(await cleanStore(engine, NO_PAUSE))).toEqual({ 'webhook_deliveries.dead': 2, events: 1 });
    expect(await ids(engine, 'events')).toEqual([toAll.id, fact.id].sort());
    expect((await engine.db.selectFrom('webhook_deliveries').select(['endpoint_id', 'status']).execute())).toEqual([{ endpoint_id: paused.endpoint.id, status: 'pending' }]);

    // Twice in a row: the second run removes nothing and changes nothing.
    const afterFirst = await snapshotStore(engine);
    const second = await cleanStore(engine, NO_PAUSE);
    expect(second).toMatchObject({ ran: true, removed: 0 });
    expect((await snapshotStore(engine)).hash).toBe(afterFirst.hash);

    // Twenty years on, the records and the kept state are as they were: only cleaned tables ever changed.
    engine.clock.advance(20 * 365 * DAY);
    expect((await cleanStore(engine, NO_PAUSE)).removed).toBe(0);
    const end = await snapshotStore(engine);
    const changed = changedTables(start, end);
    expect(changed.filter((t) => !CLEANED.has(t)), 'tables the job must not touch').toEqual([]);
    expect(changed.sort()).toEqual(['ecf_fingerprints', 'events', 'reception_seeds', 'reception_tokens', 'webhook_deliveries']);
  });

  it("removes an e-CF's fingerprint once duplicate detection can no longer look back to it (7 days), never the e-CF", async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const { ecf } = await issueEcf(engine, tenant.id, { idempotencyKey: 'retention-fp', payload: invoice31() });
    const issuedAt = Date.parse(ecf.issuedAt);
    const prints = () => engine.db.selectFrom('ecf_fingerprints').select('ecf_id').execute();
    expect(await prints()).toEqual([{ ecf_id: ecf.id }]);
    engine.clock.set(new Date(issuedAt + 7 * DAY));
    expect(removedBy(await cleanStore(engine, NO_PAUSE))).toEqual({});
    engine.clock.advance(1);
    expect(removedBy(await cleanStore(engine, NO_PAUSE))).toEqual({ ecf_fingerprints: 1 });
    expect(await prints()).toEqual([]);
    expect(await engine.db.selectFrom('ecf').select('id').execute()).toEqual([{ id: ecf.id }]);
  });

  it('gives a retried delivery its full time again, reads its settings at each run, and walks old events in small batches', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    await allowLoopback(engine);
    let answer = 500;
    const receiver = await startReceiver(() => answer);
    const { endpoint } = await createWebhook(engine, tenant.id, { url: receiver.url, events: ['*'] });
    await emitEvent(engine, tenant.id);
    await deliverThroughTheLadder(engine);
    const [row] = await engine.db.selectFrom('webhook_deliveries').select(['id', 'status']).execute();
    expect(row!.status).toBe('dead');

    // Retried on its 89th day and delivered: it is kept 30 days from then, not from its first death.
    engine.clock.advance(89 * DAY);
    await retryDelivery(engine, tenant.id, endpoint.id, row!.id);
    answer = 204;
    await deliverDueWebhooks(engine, { pollMs: 5 });
    engine.clock.advance(2 * DAY);
    expect((await cleanStore(engine, NO_PAUSE)).removed).toBe(0);
    // A setting changed applies at the next run.
    await setSetting(engine, 'retention.delivered_webhooks_days', 30);
    engine.clock.advance(28 * DAY + 1);
    expect(removedBy(await cleanStore(engine, NO_PAUSE))).toEqual({ 'webhook_deliveries.delivered': 1, events: 1 });

    // Seven old events without deliveries between events that remember a fact: two rows per transaction.
    await setSetting(engine, 'retention.events_days', 1);
    const kept: string[] = [];
    for (let i = 0; i < 7; i++) {
      await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), null, 'ecf.accepted', { i }));
      if (i % 3 === 0) kept.push((await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), null, 'ecf.accepted', { i }, { factKey: `fact-${i}` })))!.id);
    }
    engine.clock.advance(DAY);
    expect((await cleanStore(engine, { ...NO_PAUSE, batchRows: 2 })).removed).toBe(0);
    engine.clock.advance(1);
    expect(removedBy(await cleanStore(engine, { ...NO_PAUSE, batchRows: 2 }))).toEqual({ events: 7 });
    expect(await ids(engine, 'events')).toEqual(kept.sort());
    expect((await cleanStore(engine, { ...NO_PAUSE, batchRows: 2 })).removed).toBe(0);
  });

  it('stops between batches when told (the scheduler stopping), keeping what it removed; the next run goes on', async () => {
    const engine = await testEngine();
    for (let i = 0; i < 5; i++) await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), null, 'ecf.accepted', { i }));
    engine.clock.advance(30 * DAY + 1);
    const stop = new AbortController();
    const batches: [string, number][] = [];
    const stopped = await cleanStore(engine, { ...NO_PAUSE, batchRows: 2, signal: stop.signal, onBatch: (rule, rows) => (batches.push([rule, rows]), rule === 'events' && stop.abort()) });
    expect(stopped).toMatchObject({ ran: true, stopped: true, removed: 2 });
    expect(batches).toEqual([['webhook_deliveries.delivered', 0], ['webhook_deliveries.dead', 0], ['events', 2]]);
    expect(await engine.db.selectFrom('events').select('id').execute()).toHaveLength(3);
    expect(await cleanStore(engine, NO_PAUSE)).toMatchObject({ stopped: false, removed: 3 });
  });

  it('refuses a retention setting outside its rule, naming the setting and the rule, and changes nothing', async () => {
    const engine = await testEngine();
    const cases: [string, unknown, RegExp][] = [
      ['retention.delivered_webhooks_days', 29, /from 30 to 3650/],
      ['retention.dead_webhooks_days', 1.5, /whole number of days from 30 to 3650/],
      ['retention.events_days', 0, /from 1 to 3650/],
      ['retention.events_days', '30', /whole number of days/],
    ];
    for (const [key, value, rule] of cases) {
      const e = (await setSetting(engine, key, value).catch((x: unknown) => x)) as EngineError & { errors: { path: string; message: string }[] };
      expect(e, `${key} = ${JSON.stringify(value)}`).toBeInstanceOf(EngineError);
      expect(e.message).toBe(`Invalid value for ${key}.`);
      expect(e.errors).toEqual([expect.objectContaining({ path: 'value', message: expect.stringMatching(rule) })]);
    }
    expect(await engine.db.selectFrom('settings').selectAll().where('key', 'like', 'retention.%').execute()).toEqual([]);
  });
});
