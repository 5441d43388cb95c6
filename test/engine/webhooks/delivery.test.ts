import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { WebhookVerificationError } from 'standardwebhooks';
import { toDominicanIso } from '../../../src/engine/clock.js';
import { EngineError } from '../../../src/engine/errors.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import type { SecretStoreKind } from '../../../src/engine/secrets/secret-store.js';
import type { Resolver } from '../../../src/engine/webhooks/address-guard.js';
import {
  deliverDueWebhooks,
  getDelivery,
  listDeliveries,
  pingWebhook,
  retryDelivery,
  type DeliveryOptions,
} from '../../../src/engine/webhooks/delivery.js';
import { createWebhook, deleteWebhook, getWebhook, rotateWebhookSecret, updateWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { DELIVERY_LADDER_MS } from '../../../src/engine/webhooks/rules.js';
import { makeIdentity } from '../../certs.js';
import { seedTenant, testEngine } from '../../helpers.js';
import { DAY, SECOND, allowLoopback, emitEvent, startReceiver, verifyWith, type Handler } from './harness.js';

async function setup(handler?: Handler) {
  const engine = await testEngine();
  const { tenant } = await seedTenant(engine);
  await allowLoopback(engine);
  const receiver = await startReceiver(handler);
  const { endpoint, secret } = await createWebhook(engine, tenant.id, { url: receiver.url, events: ['*'] });
  const deliver = (options: DeliveryOptions = {}) => deliverDueWebhooks(engine, { pollMs: 5, ...options });
  const deliveries = async () => (await listDeliveries(engine, tenant.id, endpoint.id, { pageSize: 200 })).items;
  return { engine, tenant, receiver, endpoint, secret, deliver, deliveries };
}

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('webhook delivery', () => {
  it('posts the envelope signed the Standard Webhooks way, which the standardwebhooks package verifies', async () => {
    const { engine, tenant, receiver, secret, deliver, deliveries } = await setup();
    const event = await emitEvent(engine, tenant.id, 'ecf.accepted', { id: 'e-1', encf: 'E310000000001', montoTotal: 1180 });
    const results = await deliver();
    expect(results).toEqual([expect.objectContaining({ eventId: event.id, outcome: 'delivered', statusCode: 200, error: null })]);

    expect(receiver.received).toHaveLength(1);
    const request = receiver.received[0]!;
    expect(request).toMatchObject({ method: 'POST', path: '/hooks/ecf' });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(engine.clock.now().getTime() / 1000)),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(request.headers.host).toBe(`127.0.0.1:${receiver.port}`);
    const envelope = {
      id: event.id,
      object: 'event',
      type: 'ecf.accepted',
      apiVersion: 1,
      createdAt: '2026-03-10T10:00:00.000-04:00',
      data: { object: { id: 'e-1', encf: 'E310000000001', montoTotal: 1180 } },
    };
    expect(JSON.parse(request.body)).toEqual(envelope);
    expect(verifyWith(secret, request, engine.clock.now())).toEqual(envelope);
    // A changed body, another secret or a stale timestamp fail the independent verifier.
    expect(() => verifyWith(secret, { ...request, body: request.body.replace('1180', '1181') }, engine.clock.now())).toThrow(WebhookVerificationError);
    expect(() => verifyWith(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, request, engine.clock.now())).toThrow(WebhookVerificationError);
    expect(() => verifyWith(secret, request, new Date(engine.clock.now().getTime() + 10 * 60 * SECOND))).toThrow(/too old/);

    expect(await deliveries()).toEqual([
      {
        id: expect.any(String),
        eventId: event.id,
        eventType: 'ecf.accepted',
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: '2026-03-10T10:00:00.000-04:00',
        createdAt: '2026-03-10T10:00:00.000-04:00',
        updatedAt: '2026-03-10T10:00:00.000-04:00',
      },
    ]);
    expect(await deliver()).toEqual([]);
    expect(receiver.received).toHaveLength(1);
  });

  it('follows the ladder 10 s, 1 min, 5 min, 30 min, 2 h, 6 h to the exact instant, and the 7th failure is dead', async () => {
    const { engine, tenant, endpoint, receiver, deliver, deliveries } = await setup(() => 500);
    const event = await emitEvent(engine, tenant.id);
    const first = await deliver();
    expect(first).toEqual([expect.objectContaining({ outcome: 'retry', statusCode: 500, error: 'the receiver answered HTTP 500' })]);

    const expected = [10, 60, 300, 1800, 7200, 21600].map((s) => s * SECOND);
    expect([...DELIVERY_LADDER_MS]).toEqual(expected);
    for (const [i, wait] of expected.entries()) {
      const [d] = await deliveries();
      expect(d).toMatchObject({ status: 'pending', attempts: i + 1, lastStatusCode: 500, lastError: 'the receiver answered HTTP 500' });
      const due = new Date(engine.clock.now().getTime() + wait);
      expect(d!.nextAttemptAt).toBe(toDominicanIso(due));
      engine.clock.advance(wait - 1);
      expect(await deliver(), `attempt ${i + 2} is not due a millisecond early`).toEqual([]);
      engine.clock.advance(1);
      const r = await deliver();
      expect(r.map((x) => x.outcome)).toEqual([i === expected.length - 1 ? 'dead' : 'retry']);
    }
    const [dead] = await deliveries();
    expect(dead).toMatchObject({ status: 'dead', attempts: 7, lastStatusCode: 500, nextAttemptAt: toDominicanIso(engine.clock.now()) });
    expect(receiver.received).toHaveLength(7);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    expect((await getWebhook(engine, tenant.id, endpoint.id)).consecutiveFailures).toBe(7);

    // Dead stays dead.
    engine.clock.advance(2 * DAY);
    expect(await deliver()).toEqual([]);
    expect(receiver.received).toHaveLength(7);

    // A manual retry: pending, due now, attempts reset; a success ends it and resets the endpoint's count.
    receiver.handler = () => 204;
    await retryDelivery(engine, tenant.id, endpoint.id, dead!.id);
    expect(await getDelivery(engine, tenant.id, endpoint.id, dead!.id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      nextAttemptAt: toDominicanIso(engine.clock.now()),
    });
    expect((await deliver()).map((r) => r.outcome)).toEqual(['delivered']);
    expect(await getDelivery(engine, tenant.id, endpoint.id, dead!.id)).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 204, lastError: null });
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(event.id);
    expect((await getWebhook(engine, tenant.id, endpoint.id)).consecutiveFailures).toBe(0);

    // Only a dead delivery can be retried; anything else is a 404.
    const notDead = await retryDelivery(engine, tenant.id, endpoint.id, dead!.id).catch((e: unknown) => e);
    expect(notDead).toMatchObject({ kind: 'not_found', code: 'WebhookDelivery.NotDead' });
    const unknown = await retryDelivery(engine, tenant.id, endpoint.id, '00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ kind: 'not_found', code: 'WebhookDelivery.NotFound' });
  });

  it('after a manual retry that fails again, the ladder starts over from 10 s', async () => {
    const { engine, tenant, endpoint, deliver, deliveries } = await setup(() => 500);
    await emitEvent(engine, tenant.id);
    await deliver();
    for (const wait of DELIVERY_LADDER_MS) {
      engine.clock.advance(wait);
      await deliver();
    }
    const [dead] = await deliveries();
    expect(dead!.status).toBe('dead');
    await retryDelivery(engine, tenant.id, endpoint.id, dead!.id);
    await deliver();
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: toDominicanIso(new Date(engine.clock.now().getTime() + 10 * SECOND)) });
  });

  it('disables the endpoint after 20 failures in a row; re-enabling resumes the waiting deliveries', async () => {
    const { engine, tenant, endpoint, receiver, deliver } = await setup(() => 502);
    for (let i = 0; i < 19; i++) await emitEvent(engine, tenant.id, 'ecf.accepted', { i });
    expect((await deliver()).map((r) => r.outcome)).toEqual(Array(19).fill('retry'));
    expect(await getWebhook(engine, tenant.id, endpoint.id)).toMatchObject({ enabled: true, consecutiveFailures: 19 });

    engine.clock.advance(5 * SECOND);
    await emitEvent(engine, tenant.id, 'ecf.accepted', { i: 19 });
    expect((await deliver()).map((r) => r.outcome)).toEqual(['retry']);
    expect(await getWebhook(engine, tenant.id, endpoint.id)).toMatchObject({
      enabled: false,
      consecutiveFailures: 20,
      disabledReason: 'consecutive_failures',
      disabledAt: toDominicanIso(engine.clock.now()),
    });

    // Disabled: nothing more is sent, and new events are not queued for it.
    await emitEvent(engine, tenant.id, 'ecf.rejected');
    engine.clock.advance(DAY / 2);
    expect(await deliver()).toEqual([]);
    expect(receiver.received).toHaveLength(20);
    const pending = (await listDeliveries(engine, tenant.id, endpoint.id)).items;
    expect(pending).toHaveLength(20);
    expect(pending.every((d) => d.status === 'pending')).toBe(true);

    receiver.handler = () => 200;
    expect(await updateWebhook(engine, tenant.id, endpoint.id, { enabled: true })).toMatchObject({
      enabled: true,
      consecutiveFailures: 0,
      disabledReason: null,
      disabledAt: null,
    });
    expect((await deliver()).map((r) => r.outcome)).toEqual(Array(20).fill('delivered'));
    expect(receiver.received).toHaveLength(40);
  });

  it('a paused endpoint keeps its pending deliveries until it is enabled again', async () => {
    const { engine, tenant, endpoint, receiver, deliver } = await setup();
    await emitEvent(engine, tenant.id);
    await updateWebhook(engine, tenant.id, endpoint.id, { enabled: false });
    await emitEvent(engine, tenant.id);
    expect(await deliver()).toEqual([]);
    expect(receiver.received).toHaveLength(0);
    await updateWebhook(engine, tenant.id, endpoint.id, { enabled: true });
    expect((await deliver()).map((r) => r.outcome)).toEqual(['delivered']);
  });

  it('does not follow redirects: a 3xx is a failed attempt and the other host gets nothing', async () => {
    const elsewhere = await startReceiver();
    for (const status of [301, 302, 307, 308]) {
      const { engine, tenant, deliver } = await setup(() => ({ status, headers: { location: elsewhere.url } }));
      await emitEvent(engine, tenant.id);
      const [r] = await deliver();
      expect(r).toMatchObject({ outcome: 'retry', statusCode: status, error: `the receiver answered HTTP ${status} (redirects are not followed)` });
    }
    expect(elsewhere.received).toEqual([]);
  });

  it('counts a receiver that does not answer in time as a failure, then waits 10 s', async () => {
    const { engine, tenant, deliver, deliveries } = await setup(() => 'hang');
    await emitEvent(engine, tenant.id);
    const [r] = await deliver({ timeoutMs: 300 });
    expect(r).toMatchObject({ outcome: 'retry', statusCode: null, error: 'no answer within 0.3 s' });
    expect((await deliveries())[0]).toMatchObject({ attempts: 1, nextAttemptAt: toDominicanIso(new Date(engine.clock.now().getTime() + 10 * SECOND)) });
  });

  it('counts a refused connection as a failure', async () => {
    const { engine, tenant, receiver, deliver } = await setup();
    await receiver.close();
    await emitEvent(engine, tenant.id);
    const [r] = await deliver();
    expect(r).toMatchObject({ outcome: 'retry', statusCode: null, error: 'could not reach 127.0.0.1: ECONNREFUSED' });
  });

  it('checks the address again at every delivery: an operator who withdraws a range stops deliveries at once', async () => {
    const { engine, tenant, receiver, deliver } = await setup();
    await setSetting(engine, 'webhooks.allowed_private_cidrs', []);
    await emitEvent(engine, tenant.id);
    const [r] = await deliver();
    expect(r).toMatchObject({ outcome: 'retry', statusCode: null });
    expect(r!.error).toBe('127.0.0.1 is in 127.0.0.0/8 (loopback); webhooks may not reach private or reserved addresses');
    await setSetting(engine, 'webhooks.allowed_private_cidrs', ['127.0.0.0/8']);
    await setSetting(engine, 'webhooks.development_mode', false);
    engine.clock.advance(10 * SECOND);
    const [again] = await deliver();
    expect(again!.error).toBe('the URL must use https (plain http only when the operator turns on webhooks.development_mode)');
    expect(receiver.received).toEqual([]);
  });

  it('defeats DNS rebinding: a name checked at subscription is resolved and checked again, and the connection goes to the checked address only', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await setSetting(engine, 'webhooks.development_mode', true);
    const receiver = await startReceiver();

    // Public when subscribed, loopback when delivered: refused, nothing sent.
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: ++calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    await createWebhook(engine, tenant.id, { url: `http://rebind.test:${receiver.port}/hook`, events: ['*'] }, { resolve: rebinding });
    await emitEvent(engine, tenant.id);
    const [refused] = await deliverDueWebhooks(engine, { resolve: rebinding, pollMs: 5 });
    expect(refused!.error).toBe('rebind.test resolves to 127.0.0.1, which is in 127.0.0.0/8 (loopback); webhooks may not reach private or reserved addresses');
    expect(receiver.received).toEqual([]);
  });

  it('connects to the address it checked, never resolving the name a second time', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await allowLoopback(engine);
    const receiver = await startReceiver();
    // Every lookup after the check of each delivery answers the metadata address. The name does not exist
    // in real DNS either, so an HTTP client resolving it itself would fail.
    const asked: string[] = [];
    let checked = 0;
    const resolver: Resolver = async (host) => {
      asked.push(host);
      return [{ address: checked++ < 2 ? '127.0.0.1' : '169.254.169.254', family: 4 }];
    };
    const { endpoint, secret } = await createWebhook(engine, tenant.id, { url: `http://pinned.test:${receiver.port}/hook`, events: ['*'] }, { resolve: resolver });
    const event = await emitEvent(engine, tenant.id);
    const [r] = await deliverDueWebhooks(engine, { resolve: resolver, pollMs: 5 });
    expect(r).toMatchObject({ outcome: 'delivered', statusCode: 200 });
    expect(asked).toEqual(['pinned.test', 'pinned.test']); // once at subscription, once at the delivery
    expect(receiver.received[0]!.headers.host).toBe(`pinned.test:${receiver.port}`);
    expect(receiver.received[0]!.headers['webhook-id']).toBe(event.id);
    expect(verifyWith(secret, receiver.received[0]!, engine.clock.now())).toMatchObject({ id: event.id });

    // The next delivery's check gets the metadata address: refused, never sent.
    await emitEvent(engine, tenant.id);
    const [next] = await deliverDueWebhooks(engine, { resolve: resolver, pollMs: 5 });
    expect(next!.error).toContain('metadata');
    expect(receiver.received).toHaveLength(1);
    expect((await getWebhook(engine, tenant.id, endpoint.id)).consecutiveFailures).toBe(1);
  });

  it('speaks TLS to the checked address with the URL’s host as the server name, and verifies the certificate', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await setSetting(engine, 'webhooks.allowed_private_cidrs', ['127.0.0.0/8']);
    const { keyPem: key, certPem: cert } = makeIdentity({ commonName: 'pinned.test' }); // not signed by any CA the machine trusts
    const serverNames: string[] = [];
    let requests = 0;
    const server = createHttpsServer(
      { key, cert, SNICallback: (name, done) => (serverNames.push(name), done(null, createSecureContext({ key, cert }))) },
      (_req, res) => (requests++, res.end('ok')),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
      await createWebhook(engine, tenant.id, { url: `https://pinned.test:${port}/hook`, events: ['*'] }, { resolve });
      await emitEvent(engine, tenant.id);
      const [r] = await deliverDueWebhooks(engine, { resolve, pollMs: 5 });
      expect(r).toMatchObject({ outcome: 'retry', statusCode: null });
      expect(r!.error).toMatch(new RegExp(`^TLS with pinned\\.test:${port} failed: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|DEPTH_ZERO)`));
      expect(serverNames).toEqual(['pinned.test']);
      expect(requests).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('signs with the current secret: after a rotation the old secret no longer verifies, even for deliveries queued before', async () => {
    const { engine, tenant, endpoint, secret, receiver, deliver } = await setup();
    await emitEvent(engine, tenant.id);
    await deliver();
    expect(verifyWith(secret, receiver.received[0]!, engine.clock.now())).toBeTruthy();

    await emitEvent(engine, tenant.id, 'ecf.rejected');
    const { secret: rotated } = await rotateWebhookSecret(engine, tenant.id, endpoint.id);
    await deliver();
    const after = receiver.received[1]!;
    expect(JSON.parse(after.body).type).toBe('ecf.rejected');
    expect(verifyWith(rotated, after, engine.clock.now())).toMatchObject({ type: 'ecf.rejected' });
    expect(() => verifyWith(secret, after, engine.clock.now())).toThrow(WebhookVerificationError);
    expect(() => verifyWith(rotated, receiver.received[0]!, engine.clock.now())).toThrow(WebhookVerificationError);
  });

  it('counts a secret missing from the secret store as a failed attempt', async () => {
    const { engine, tenant, receiver, deliver } = await setup();
    const row = await engine.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    // A fresh process has no cached secret; this one forgets it with a rotation done behind its back.
    await engine.db.updateTable('webhook_endpoints').set({ secret_ref: `${row.secret_ref}-gone` }).execute();
    await engine.secrets.of(row.secret_store as SecretStoreKind).delete(row.secret_ref);
    await emitEvent(engine, tenant.id);
    const [r] = await deliver();
    expect(r).toMatchObject({ outcome: 'retry', statusCode: null });
    expect(r!.error).toContain('no longer holds the secret');
    expect(receiver.received).toEqual([]);
  });

  it('lists the log newest first, paged', async () => {
    const { engine, tenant, endpoint } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await emitEvent(engine, tenant.id, 'ecf.accepted', { i })).id);
      if (i === 2) engine.clock.advance(SECOND);
    }
    const page1 = await listDeliveries(engine, tenant.id, endpoint.id, { pageSize: 2 });
    expect(page1).toMatchObject({ totalCount: 5, page: 1, pageSize: 2, totalPages: 3, hasNextPage: true, hasPreviousPage: false });
    const page3 = await listDeliveries(engine, tenant.id, endpoint.id, { page: '3', pageSize: '2' });
    expect(page3).toMatchObject({ page: 3, hasNextPage: false, hasPreviousPage: true });
    const all = await listDeliveries(engine, tenant.id, endpoint.id);
    expect(all.items.map((d) => d.eventId)).toEqual([...ids].reverse());
    expect([...page1.items, ...(await listDeliveries(engine, tenant.id, endpoint.id, { page: 2, pageSize: 2 })).items, ...page3.items].map((d) => d.eventId)).toEqual(
      [...ids].reverse(),
    );
    const bad = await listDeliveries(engine, tenant.id, endpoint.id, { page: 'x', size: 1 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(EngineError);
    expect((bad as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['query.size', 'query.page']);
  });

  it('claims each delivery once when two runs go at the same time', async () => {
    const { engine, tenant, receiver } = await setup();
    const events = [];
    for (let i = 0; i < 12; i++) events.push((await emitEvent(engine, tenant.id, 'ecf.accepted', { i })).id);
    const [a, b] = await Promise.all([
      deliverDueWebhooks(engine, { owner: 'run-a', pollMs: 5, perEndpoint: 2 }),
      deliverDueWebhooks(engine, { owner: 'run-b', pollMs: 5, perEndpoint: 2 }),
    ]);
    expect([...a!, ...b!].filter((r) => r.outcome === 'delivered')).toHaveLength(12);
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual(events.sort());
  });
});

describe('one endpoint never delays another', () => {
  it('delivers to a fast receiver, again and again, while a slow one holds its request', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await allowLoopback(engine);
    let release!: () => void;
    const released = new Promise<number>((resolve) => (release = () => resolve(200)));
    const slow = await startReceiver((_r, i) => (i === 0 ? released : 200));
    const fast = await startReceiver();
    const slowHook = (await createWebhook(engine, tenant.id, { url: slow.url, events: ['*'] })).endpoint;
    const fastHook = (await createWebhook(engine, tenant.id, { url: fast.url, events: ['*'] })).endpoint;
    const statusOf = async (endpointId: string) => (await listDeliveries(engine, tenant.id, endpointId)).items.map((d) => d.status);

    const first = await emitEvent(engine, tenant.id);
    const run = deliverDueWebhooks(engine, { pollMs: 5 });
    await slow.waitFor(1);
    await fast.waitFor(1);
    await until(async () => (await statusOf(fastHook.id)).join() === 'delivered', 'the fast delivery');

    // While the slow receiver still holds the first event, a new event reaches the fast one in the same run.
    const second = await emitEvent(engine, tenant.id, 'ecf.rejected');
    await fast.waitFor(2);
    await until(async () => (await statusOf(fastHook.id)).join() === 'delivered,delivered', 'the second fast delivery');
    expect(fast.received.map((r) => r.headers['webhook-id'])).toEqual([first.id, second.id]);
    // Its own lane has room for more than one attempt: the slow receiver's second event does not wait for its first.
    await slow.waitFor(2);
    await until(async () => (await statusOf(slowHook.id)).join() === 'delivered,pending', 'the second slow delivery');

    release();
    const results = await run;
    expect(await statusOf(slowHook.id)).toEqual(['delivered', 'delivered']);
    expect(results.filter((r) => r.endpointId === slowHook.id).map((r) => r.outcome)).toEqual(['delivered', 'delivered']);
  });

  it('DELETE stops at once: an attempt in flight when the endpoint is removed records nothing', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await allowLoopback(engine);
    let release!: () => void;
    const held = new Promise<number>((resolve) => (release = () => resolve(200)));
    const receiver = await startReceiver(() => held);
    const { endpoint } = await createWebhook(engine, tenant.id, { url: receiver.url, events: ['*'] });
    await emitEvent(engine, tenant.id);
    await emitEvent(engine, tenant.id);
    const run = deliverDueWebhooks(engine, { pollMs: 5, perEndpoint: 1 });
    await receiver.waitFor(1);
    await deleteWebhook(engine, tenant.id, endpoint.id);
    release();
    const results = await run;
    expect(results.map((r) => r.outcome)).toEqual(['lease_lost']);
    expect(receiver.received).toHaveLength(1);
    expect(await engine.db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
  });
});

describe('ping', () => {
  it('delivers a signed webhook.ping now, outside the queue, and reports what happened', async () => {
    const { engine, tenant, endpoint, secret, receiver } = await setup();
    expect(await pingWebhook(engine, tenant.id, endpoint.id)).toEqual({ delivered: true, statusCode: 200, error: null });
    const ping = receiver.received[0]!;
    const body = verifyWith(secret, ping, engine.clock.now()) as { id: string; type: string; data: { object: unknown } };
    expect(body).toMatchObject({ object: 'event', type: 'webhook.ping', apiVersion: 1, createdAt: '2026-03-10T10:00:00.000-04:00' });
    expect(body.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(ping.headers['webhook-id']).toBe(body.id);
    expect(body.data.object).toEqual(await getWebhook(engine, tenant.id, endpoint.id));
    expect(await engine.db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
    expect(await engine.db.selectFrom('events').selectAll().where('type', '=', 'webhook.ping').execute()).toEqual([]);

    receiver.handler = () => 503;
    expect(await pingWebhook(engine, tenant.id, endpoint.id)).toEqual({ delivered: false, statusCode: 503, error: 'the receiver answered HTTP 503' });
    expect((await getWebhook(engine, tenant.id, endpoint.id)).consecutiveFailures).toBe(0);

    // A paused endpoint can be pinged (to try it before enabling it again).
    receiver.handler = () => 200;
    await updateWebhook(engine, tenant.id, endpoint.id, { enabled: false });
    expect((await pingWebhook(engine, tenant.id, endpoint.id)).delivered).toBe(true);

    // The guard applies to pings too.
    await setSetting(engine, 'webhooks.allowed_private_cidrs', []);
    const refused = await pingWebhook(engine, tenant.id, endpoint.id);
    expect(refused).toMatchObject({ delivered: false, statusCode: null });
    expect(refused.error).toContain('loopback');
    expect(receiver.received).toHaveLength(3);

    const timeout = await startReceiver(() => 'hang');
    await setSetting(engine, 'webhooks.allowed_private_cidrs', ['127.0.0.0/8']);
    await updateWebhook(engine, tenant.id, endpoint.id, { url: timeout.url });
    expect(await pingWebhook(engine, tenant.id, endpoint.id, { timeoutMs: 200 })).toEqual({ delivered: false, statusCode: null, error: 'no answer within 0.2 s' });
  });
});
