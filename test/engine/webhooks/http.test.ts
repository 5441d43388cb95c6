import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { deliverDueWebhooks } from '../../../src/engine/webhooks/delivery.js';
import { DELIVERY_LADDER_MS } from '../../../src/engine/webhooks/rules.js';
import { organizationKey, seedOrganization, seedTenant, testEngine } from '../../helpers.js';
import { allowLoopback, emitEvent, startReceiver, verifyWith } from './harness.js';
import { api } from '../../api.js';

async function setup() {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const { organization, owner } = await seedOrganization(engine);
  const { tenant, keys } = await seedTenant(engine, { organizationId: organization.id });
  const orgKey = await organizationKey(engine, organization.id, owner.id);
  await allowLoopback(engine);
  const receiver = await startReceiver();
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, key = keys.admin_tenant) =>
    api(app).key(key).send(method, url, payload as Record<string, unknown> | undefined);
  return { engine, app, tenant, keys, orgKey, receiver, call };
}

describe('HTTP /api/v1/webhooks', () => {
  it('creates (201 with the secret once), lists, gets, patches (the endpoint view), rotates, pings and deletes', async () => {
    const { engine, tenant, receiver, call } = await setup();
    const created = await call('POST', '/api/v1/webhooks', { url: receiver.url, events: ['ecf.*', 'sequence.low'], description: 'ERP' });
    expect(created.statusCode).toBe(201);
    const { endpoint, secret } = created.json();
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({ tenantId: tenant.id, url: receiver.url, events: ['ecf.*', 'sequence.low'], enabled: true, consecutiveFailures: 0 });
    expect(Object.keys(endpoint).sort()).toEqual(
      ['consecutiveFailures', 'createdAt', 'description', 'disabledAt', 'disabledReason', 'enabled', 'events', 'id', 'tenantId', 'updatedAt', 'url'].sort(),
    );

    const list = await call('GET', '/api/v1/webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([endpoint]);
    expect(list.body).not.toContain(secret.slice(6));
    expect((await call('GET', `/api/v1/webhooks/${endpoint.id}`)).json()).toEqual(endpoint);

    const patched = await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { enabled: false, description: null });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: endpoint.id, enabled: false, disabledReason: 'paused', description: null, url: receiver.url });
    expect(patched.body).not.toContain('secret');
    const enabled = await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { enabled: true, events: ['*'] });
    expect(enabled.json()).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, consecutiveFailures: 0, events: ['*'] });

    const rotated = await call('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(Object.keys(rotated.json())).toEqual(['secret']);
    expect(rotated.json().secret).not.toBe(secret);

    const ping = await call('POST', `/api/v1/webhooks/${endpoint.id}/ping`);
    expect(ping.statusCode).toBe(200);
    expect(ping.json()).toEqual({ delivered: true, statusCode: 200, error: null });
    expect(verifyWith(rotated.json().secret, receiver.received[0]!, engine.clock.now())).toMatchObject({ type: 'webhook.ping' });
    expect(() => verifyWith(secret, receiver.received[0]!, engine.clock.now())).toThrow();

    const removed = await call('DELETE', `/api/v1/webhooks/${endpoint.id}`);
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    for (const [method, url] of [
      ['GET', `/api/v1/webhooks/${endpoint.id}`],
      ['DELETE', `/api/v1/webhooks/${endpoint.id}`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/ping`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`],
      ['GET', `/api/v1/webhooks/${endpoint.id}/deliveries`],
    ] as const) {
      const res = await call(method, url);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, code: 'Webhook.NotFound' });
    }
    expect((await call('GET', '/api/v1/webhooks')).json()).toEqual([]);
  });

  it('answers validation problems that name every field and rule', async () => {
    const { engine, call } = await setup();
    const res = await call('POST', '/api/v1/webhooks', { url: 'hooks.example.com/ecf', events: ['ecf.accepted', 'ecf.voided', 'webhook.ping'], colour: 'blue' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({ status: 400, code: 'Validation.Failed', title: 'One or more fields are invalid.' });
    expect(Object.keys(body.errors).sort()).toEqual(['colour', 'events[1]', 'events[2]', 'url']);
    expect(body.errors['events[1]']).toEqual(['ecf.voided is not an event type; use an existing type (ecf.accepted), a category wildcard (ecf.*) or *']);
    expect(body.fieldErrors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()).toEqual(
      ['colour:ObjectAdditionalProperties', 'events[1]:Webhook.UnknownEventType', 'events[2]:Webhook.PingNotSubscribable', 'url:Webhook.UrlNotAbsolute'].sort(),
    );

    const many = await call('POST', '/api/v1/webhooks', { url: 'https://93.184.216.34/x', events: Array(21).fill('*') });
    expect(many.json().errors).toEqual({ events: ['must hold 1 to 20 entries'] });
    expect((await call('POST', '/api/v1/webhooks', {})).json().errors).toEqual({ url: ['is required'], events: ['is required'] });
    const noBody = await call('POST', '/api/v1/webhooks');
    expect(noBody.statusCode).toBe(400);

    const ssrf = await call('POST', '/api/v1/webhooks', { url: 'https://[::ffff:10.0.0.1]/hook', events: ['*'] });
    expect(ssrf.json().fieldErrors).toEqual([
      { path: 'url', code: 'Webhook.AddressNotAllowed', message: '::ffff:a00:1 is in ::ffff:0:0/96 (IPv4-mapped IPv6); webhooks may not reach private or reserved addresses' },
    ]);
    await setSetting(engine, 'webhooks.development_mode', false);
    const plain = await call('POST', '/api/v1/webhooks', { url: 'http://93.184.216.34/hook', events: ['*'] });
    expect(plain.json().fieldErrors).toEqual([
      { path: 'url', code: 'Webhook.HttpsRequired', message: 'must use https (plain http only when the operator turns on webhooks.development_mode)' },
    ]);

    const { endpoint } = (await call('POST', '/api/v1/webhooks', { url: 'https://93.184.216.34/hook', events: ['*'] })).json();
    const patch = await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { enabled: 'no', events: [] });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().errors).toEqual({ enabled: ['must be true or false'], events: ['must hold 1 to 20 entries'] });
    expect((await call('GET', '/api/v1/webhooks/not-a-uuid')).json().errors).toEqual({ 'path.id': ['must be a UUID'] });
    expect((await call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries?page=x`)).json().errors).toMatchObject({ 'query.page': expect.any(Array) });
  });

  it('refuses a sixth endpoint', async () => {
    const { call } = await setup();
    for (let i = 0; i < 5; i++) expect((await call('POST', '/api/v1/webhooks', { url: `https://93.184.216.34/${i}`, events: ['*'] })).statusCode).toBe(201);
    const sixth = await call('POST', '/api/v1/webhooks', { url: 'https://93.184.216.34/6', events: ['*'] });
    expect(sixth.statusCode).toBe(400);
    expect(sixth.json()).toMatchObject({ code: 'Webhook.LimitReached', status: 400 });
  });

  it('lists deliveries newest first and retries only dead ones', async () => {
    const { engine, tenant, receiver, call } = await setup();
    receiver.handler = () => 500;
    const { endpoint } = (await call('POST', '/api/v1/webhooks', { url: receiver.url, events: ['ecf.*'] })).json();
    const older = await emitEvent(engine, tenant.id, 'ecf.accepted');
    engine.clock.advance(1000);
    const newer = await emitEvent(engine, tenant.id, 'ecf.rejected');
    await deliverDueWebhooks(engine, { pollMs: 5 });
    for (const wait of DELIVERY_LADDER_MS) {
      engine.clock.advance(wait);
      await deliverDueWebhooks(engine, { pollMs: 5 });
    }
    const page = await call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries?page=1&pageSize=1`);
    expect(page.statusCode).toBe(200);
    expect(page.json()).toMatchObject({ totalCount: 2, page: 1, pageSize: 1, totalPages: 2, hasNextPage: true, hasPreviousPage: false });
    expect(page.json().items[0]).toMatchObject({ eventId: newer.id, eventType: 'ecf.rejected', status: 'dead', attempts: 7, lastStatusCode: 500 });
    const all = (await call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`)).json();
    expect(all.items.map((d: { eventId: string }) => d.eventId)).toEqual([newer.id, older.id]);

    const dead = all.items[1];
    const retried = await call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${dead.id}/retry`);
    expect(retried.statusCode).toBe(204);
    const again = await call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${dead.id}/retry`);
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('WebhookDelivery.NotDead');
    const other = await call('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`);
    expect(other.json()).toMatchObject({ status: 404, code: 'WebhookDelivery.NotFound' });
    const after = (await call('GET', `/api/v1/webhooks/${endpoint.id}/deliveries`)).json().items;
    expect(after[1]).toMatchObject({ id: dead.id, status: 'pending', attempts: 0 });
  });

  it('lets only admin_tenant keys in, and scopes every endpoint to the key’s tenant', async () => {
    const { engine, keys, orgKey, call } = await setup();
    const { endpoint } = (await call('POST', '/api/v1/webhooks', { url: 'https://93.184.216.34/hook', events: ['*'] })).json();
    const routes = [
      ['POST', '/api/v1/webhooks'],
      ['GET', '/api/v1/webhooks'],
      ['GET', `/api/v1/webhooks/${endpoint.id}`],
      ['PATCH', `/api/v1/webhooks/${endpoint.id}`],
      ['DELETE', `/api/v1/webhooks/${endpoint.id}`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/ping`],
      ['GET', `/api/v1/webhooks/${endpoint.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${endpoint.id}/retry`],
    ] as const;
    for (const [method, url] of routes) {
      for (const key of [keys.emisor, keys.consultor]) {
        const res = await call(method, url, method === 'POST' || method === 'PATCH' ? { enabled: false } : undefined, key);
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json()).toMatchObject({ code: 'Auth.RoleNotAllowed' });
        expect(res.json().detail).toContain('allowed: admin_tenant');
      }
      expect((await call(method, url, undefined, orgKey)).json().code).toBe('Auth.TenantKeyRequired');
      const anonymous = await engine.db.selectFrom('webhook_endpoints').select('id').execute();
      expect(anonymous).toHaveLength(1);
    }
    const other = await seedTenant(engine);
    for (const [method, url] of routes.slice(2)) {
      const res = await call(method, url, method === 'PATCH' ? { enabled: false } : undefined, other.keys.admin_tenant);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call('GET', '/api/v1/webhooks', undefined, other.keys.admin_tenant)).json()).toEqual([]);
    expect((await call('GET', `/api/v1/webhooks/${endpoint.id}`)).json().enabled).toBe(true);
  });

  it('publishes every webhook operation in the OpenAPI document with its role', async () => {
    const { app } = await setup();
    const doc = (await api(app).get('/api/v1/openapi.json')).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/webhooks')).sort()).toEqual(
      [
        '/api/v1/webhooks',
        '/api/v1/webhooks/{id}',
        '/api/v1/webhooks/{id}/deliveries',
        '/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
        '/api/v1/webhooks/{id}/ping',
        '/api/v1/webhooks/{id}/rotate-secret',
      ].sort(),
    );
    expect(doc.paths['/api/v1/webhooks/{id}'].patch.description).toContain('Roles: admin_tenant.');
    expect(doc.paths['/api/v1/webhooks/{id}'].patch.requestBody).toBeDefined();
    expect(Object.keys(doc.paths['/api/v1/webhooks/{id}'].patch.responses)).toContain('200');
  });
});
