import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EngineError, ValidationError } from '../../../src/engine/errors.js';
import { emit } from '../../../src/engine/events/outbox.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import {
  createWebhook,
  deleteWebhook,
  endpointSecret,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from '../../../src/engine/webhooks/endpoints.js';
import { listDeliveries } from '../../../src/engine/webhooks/delivery.js';
import type { Resolver } from '../../../src/engine/webhooks/address-guard.js';
import { seedTenant, storedBytes, testEngine } from '../../helpers.js';
import { allowLoopback, emitEvent } from './harness.js';

async function thrown<T extends Error>(work: () => Promise<unknown>, type: new (...a: never[]) => T): Promise<T> {
  const error = await work().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

async function setup() {
  const engine = await testEngine();
  const { tenant } = await seedTenant(engine);
  return { engine, tenant };
}

const HOOK = 'https://93.184.216.34/hooks/ecf';

describe('webhook endpoints', () => {
  it('creates an endpoint with a whsec_ secret kept encrypted in the secret store, never in the database', async () => {
    const { engine, tenant } = await setup();
    await setSetting(engine, 'secrets.store', 'file');
    const created = await createWebhook(engine, tenant.id, { url: HOOK, events: ['ecf.*', 'sequence.low', 'ecf.*'], description: 'ERP' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created.endpoint).toEqual({
      id: expect.any(String),
      tenantId: tenant.id,
      url: HOOK,
      description: 'ERP',
      events: ['ecf.*', 'sequence.low'],
      enabled: true,
      consecutiveFailures: 0,
      disabledReason: null,
      disabledAt: null,
      createdAt: '2026-03-10T10:00:00.000-04:00',
      updatedAt: null,
    });
    expect(JSON.stringify(await listWebhooks(engine, tenant.id))).not.toContain(created.secret);

    // Not in the database, not in clear in the secret files: only sealed under the store's key.
    const raw = await storedBytes(engine);
    expect(raw.includes(Buffer.from(created.secret))).toBe(false);
    expect(raw.includes(Buffer.from(created.secret.slice(6)))).toBe(false);
    const row = await engine.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ secret_store: 'file', secret_ref: expect.stringMatching(new RegExp(`^webhook/${row.id}/[0-9a-f]{12}$`)) });
    // Sealed files on one machine (SQLite), sealed rows every node opens (PostgreSQL).
    const sealed =
      engine.dialect === 'sqlite'
        ? readdirSync(join(engine.dataDir, 'secrets')).map((f) => readFileSync(join(engine.dataDir, 'secrets', f), 'utf8'))
        : (await engine.db.selectFrom('sealed_secrets').select('body').execute()).map((r) => r.body);
    expect(sealed).toHaveLength(1);
    expect(sealed[0]).not.toContain(created.secret.slice(6));
    expect(await endpointSecret(engine, row)).toBe(created.secret);
  });

  it('names every invalid field at once', async () => {
    const { engine, tenant } = await setup();
    const tooMany = Array.from({ length: 21 }, () => 'ecf.accepted');
    const e1 = await thrown(() => createWebhook(engine, tenant.id, { url: 'not a url', events: ['ecf.accepted', 'ecf.voided', 'webhook.ping', 'webhook.*', 'nope.*', ''], extra: 1 }), ValidationError);
    expect(e1.errors.map((e) => [e.path, e.code])).toEqual([
      ['extra', 'ObjectAdditionalProperties'],
      ['events[5]', 'StringMinLength'],
      ['url', 'Webhook.UrlNotAbsolute'],
    ]);
    const e2 = await thrown(() => createWebhook(engine, tenant.id, { url: 'not a url', events: ['ecf.accepted', 'ecf.voided', 'webhook.ping', 'webhook.*', 'nope.*'] }), ValidationError);
    expect(e2.errors.map((e) => [e.path, e.code])).toEqual([
      ['url', 'Webhook.UrlNotAbsolute'],
      ['events[1]', 'Webhook.UnknownEventType'],
      ['events[2]', 'Webhook.PingNotSubscribable'],
      ['events[3]', 'Webhook.PingNotSubscribable'],
      ['events[4]', 'Webhook.UnknownEventType'],
    ]);
    const e3 = await thrown(() => createWebhook(engine, tenant.id, { url: HOOK, events: tooMany }), ValidationError);
    expect(e3.errors).toEqual([{ path: 'events', code: 'ArrayMaxItems', message: 'must hold 1 to 20 entries' }]);
    const e4 = await thrown(() => createWebhook(engine, tenant.id, { events: [] }), ValidationError);
    expect(e4.errors.map((e) => [e.path, e.code])).toEqual([
      ['url', 'ObjectRequiredProperty'],
      ['events', 'ArrayMinItems'],
    ]);
    const cases: [string, string][] = [
      ['http://93.184.216.34/hook', 'Webhook.HttpsRequired'],
      ['ftp://93.184.216.34/hook', 'Webhook.UrlScheme'],
      ['https://user:pw@93.184.216.34/hook', 'Webhook.UrlCredentials'],
      ['https://93.184.216.34/hook#frag', 'Webhook.UrlFragment'],
      ['/relative/hook', 'Webhook.UrlNotAbsolute'],
      ['https://10.0.0.8/hook', 'Webhook.AddressNotAllowed'],
      ['https://169.254.169.254/latest/meta-data', 'Webhook.AddressNotAllowed'],
    ];
    for (const [url, code] of cases) {
      const e = await thrown(() => createWebhook(engine, tenant.id, { url, events: ['*'] }), ValidationError);
      expect(e.errors.map((x) => [x.path, x.code]), url).toEqual([['url', code]]);
    }
    expect(await listWebhooks(engine, tenant.id)).toEqual([]);
  });

  it('accepts exactly 20 entries and every kind of entry', async () => {
    const { engine, tenant } = await setup();
    const twenty = ['*', 'ecf.*', 'certificate.*', 'sequence.*', 'contingency.*', 'tenant.*', 'alert.*', 'usage.*', 'billing.*', 'inbound_ecf.*',
      'commercial_approval.*', 'ecf.accepted', 'ecf.rejected', 'ecf.failed', 'ecf.review', 'ecf.submitted', 'ecf.accepted_conditional',
      'ecf.duplicate_suspected', 'sequence.low', 'billing.period_closed'];
    const { endpoint } = await createWebhook(engine, tenant.id, { url: HOOK, events: twenty });
    expect(endpoint.events).toEqual(twenty);
  });

  it('allows plain HTTP only in development mode, and private addresses only inside the operator’s CIDRs', async () => {
    const { engine, tenant } = await setup();
    const lan = { url: 'http://192.168.1.50:8080/hook', events: ['*'] };
    expect((await thrown(() => createWebhook(engine, tenant.id, lan), ValidationError)).errors[0]!.code).toBe('Webhook.HttpsRequired');
    await setSetting(engine, 'webhooks.development_mode', true);
    const refused = await thrown(() => createWebhook(engine, tenant.id, lan), ValidationError);
    expect(refused.errors).toEqual([
      { path: 'url', code: 'Webhook.AddressNotAllowed', message: '192.168.1.50 is in 192.168.0.0/16 (private); webhooks may not reach private or reserved addresses' },
    ]);
    await setSetting(engine, 'webhooks.allowed_private_cidrs', ['192.168.1.0/24']);
    expect((await createWebhook(engine, tenant.id, lan)).endpoint.url).toBe('http://192.168.1.50:8080/hook');
    await setSetting(engine, 'webhooks.allowed_private_cidrs', ['192.168.1.0/24', '169.254.0.0/16']);
    const metadata = await thrown(() => createWebhook(engine, tenant.id, { url: 'http://169.254.169.254/', events: ['*'] }), ValidationError);
    expect(metadata.errors[0]!.message).toContain('metadata');
  });

  it('refuses a bad CIDR in the operator setting', async () => {
    const { engine, tenant } = await setup();
    const e = await thrown(() => setSetting(engine, 'webhooks.allowed_private_cidrs', ['192.168.1.0/24', '192.168.1/24']), ValidationError);
    expect(e.errors.map((x) => x.path)).toEqual(['value[1]']);
    expect((await thrown(() => setSetting(engine, 'webhooks.allowed_private_cidrs', '10.0.0.0/8'), ValidationError)).errors[0]!.path).toBe('value');
    // The operator's alone: a tenant cannot widen what its webhooks reach.
    const tenantScoped = await thrown(() => setSetting(engine, 'webhooks.allowed_private_cidrs', ['10.0.0.0/8'], tenant.id), EngineError);
    expect(tenantScoped.code).toBe('Settings.PlatformOnly');
  });

  it('stores the URL as normalised, which is the form checked again at delivery', async () => {
    const { engine, tenant } = await setup();
    const resolve: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const { endpoint } = await createWebhook(engine, tenant.id, { url: 'HTTPS://Hooks.Example.COM:443/a/../ecf?x=1', events: ['*'] }, { resolve });
    expect(endpoint.url).toBe('https://hooks.example.com/ecf?x=1');
  });

  it('holds at most 5 endpoints per tenant', async () => {
    const { engine, tenant } = await setup();
    const other = await seedTenant(engine);
    for (let i = 0; i < 5; i++) await createWebhook(engine, tenant.id, { url: `${HOOK}/${i}`, events: ['*'] });
    const e = await thrown(() => createWebhook(engine, tenant.id, { url: HOOK, events: ['*'] }), EngineError);
    expect(e).toMatchObject({ kind: 'validation', code: 'Webhook.LimitReached' });
    await createWebhook(engine, other.tenant.id, { url: HOOK, events: ['*'] });
    const [first] = await listWebhooks(engine, tenant.id);
    await deleteWebhook(engine, tenant.id, first!.id);
    await createWebhook(engine, tenant.id, { url: HOOK, events: ['*'] });
    expect(await listWebhooks(engine, tenant.id)).toHaveLength(5);
  });

  it('patches fields, pauses and re-enables, and answers the endpoint view', async () => {
    const { engine, tenant } = await setup();
    const { endpoint } = await createWebhook(engine, tenant.id, { url: HOOK, events: ['ecf.*'] });
    engine.clock.advance(60_000);
    const patched = await updateWebhook(engine, tenant.id, endpoint.id, { events: ['sequence.*'], description: 'Contabilidad' });
    expect(patched).toMatchObject({ events: ['sequence.*'], description: 'Contabilidad', url: HOOK, updatedAt: '2026-03-10T10:01:00.000-04:00' });
    const paused = await updateWebhook(engine, tenant.id, endpoint.id, { enabled: false });
    expect(paused).toMatchObject({ enabled: false, disabledReason: 'paused', disabledAt: '2026-03-10T10:01:00.000-04:00' });
    await engine.db.updateTable('webhook_endpoints').set({ consecutive_failures: 7 }).execute();
    const enabled = await updateWebhook(engine, tenant.id, endpoint.id, { enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, consecutiveFailures: 0 });
    const e = await thrown(() => updateWebhook(engine, tenant.id, endpoint.id, { url: 'https://10.9.9.9/', events: ['webhook.ping'], enabled: 'yes' }), ValidationError);
    // The address check resolves the host, so it runs once the body is otherwise valid.
    expect(e.errors.map((x) => [x.path, x.code])).toEqual([
      ['enabled', 'Boolean'],
      ['events[0]', 'Webhook.PingNotSubscribable'],
    ]);
    const e2 = await thrown(() => updateWebhook(engine, tenant.id, endpoint.id, { url: 'https://10.9.9.9/' }), ValidationError);
    expect(e2.errors.map((x) => [x.path, x.code])).toEqual([['url', 'Webhook.AddressNotAllowed']]);
    expect((await getWebhook(engine, tenant.id, endpoint.id)).url).toBe(HOOK);
  });

  it('answers 404 for another tenant’s endpoint and for malformed ids', async () => {
    const { engine, tenant } = await setup();
    const other = await seedTenant(engine);
    const { endpoint } = await createWebhook(engine, other.tenant.id, { url: HOOK, events: ['*'] });
    for (const work of [
      () => getWebhook(engine, tenant.id, endpoint.id),
      () => updateWebhook(engine, tenant.id, endpoint.id, { enabled: false }),
      () => deleteWebhook(engine, tenant.id, endpoint.id),
      () => rotateWebhookSecret(engine, tenant.id, endpoint.id),
      () => listDeliveries(engine, tenant.id, endpoint.id),
      () => getWebhook(engine, tenant.id, 'nope'),
    ]) {
      expect(await thrown(work, EngineError)).toMatchObject({ kind: 'not_found', code: 'Webhook.NotFound' });
    }
    expect((await getWebhook(engine, other.tenant.id, endpoint.id)).enabled).toBe(true);
  });

  it('rotation replaces the secret in the store and removes the old one', async () => {
    const { engine, tenant } = await setup();
    await setSetting(engine, 'secrets.store', 'file');
    const { endpoint, secret } = await createWebhook(engine, tenant.id, { url: HOOK, events: ['*'] });
    const before = await engine.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    expect(await endpointSecret(engine, before)).toBe(secret);
    const rotated = await rotateWebhookSecret(engine, tenant.id, endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    const after = await engine.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    expect(after.secret_ref).not.toBe(before.secret_ref);
    expect(await endpointSecret(engine, after)).toBe(rotated.secret);
    expect(await engine.secrets.of('file').get(before.secret_ref)).toBeNull();
    await deleteWebhook(engine, tenant.id, endpoint.id);
    expect(await engine.secrets.of('file').get(after.secret_ref)).toBeNull();
  });
});

describe('fan-out in the outbox transaction', () => {
  it('writes one pending delivery per matching enabled endpoint of the tenant, due now', async () => {
    const { engine, tenant } = await setup();
    const other = await seedTenant(engine);
    const exact = (await createWebhook(engine, tenant.id, { url: HOOK, events: ['ecf.accepted'] })).endpoint;
    const category = (await createWebhook(engine, tenant.id, { url: HOOK, events: ['ecf.*'] })).endpoint;
    const all = (await createWebhook(engine, tenant.id, { url: HOOK, events: ['*'] })).endpoint;
    const unrelated = (await createWebhook(engine, tenant.id, { url: HOOK, events: ['sequence.*', 'certificate.expired'] })).endpoint;
    const paused = (await createWebhook(engine, tenant.id, { url: HOOK, events: ['*'] })).endpoint;
    await updateWebhook(engine, tenant.id, paused.id, { enabled: false });
    const theirs = (await createWebhook(engine, other.tenant.id, { url: HOOK, events: ['*'] })).endpoint;

    const accepted = await emitEvent(engine, tenant.id, 'ecf.accepted');
    const rejected = await emitEvent(engine, tenant.id, 'ecf.rejected');
    const spike = await emitEvent(engine, tenant.id, 'alert.rejection_spike');
    const rows = await engine.db.selectFrom('webhook_deliveries').selectAll().orderBy('endpoint_id').execute();
    const pairs = rows.map((r) => `${r.endpoint_id}:${r.event_id}`).sort();
    expect(pairs).toEqual(
      [
        `${exact.id}:${accepted.id}`,
        `${category.id}:${accepted.id}`,
        `${category.id}:${rejected.id}`,
        `${all.id}:${accepted.id}`,
        `${all.id}:${rejected.id}`,
        `${all.id}:${spike.id}`,
      ].sort(),
    );
    for (const r of rows) {
      expect(r).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: engine.clock.now().toISOString(), tenant_id: tenant.id });
    }
    expect(rows.some((r) => [unrelated.id, paused.id, theirs.id].includes(r.endpoint_id))).toBe(false);
  });

  it('writes nothing when the event’s transaction rolls back, and nothing for a fact told twice', async () => {
    const { engine, tenant } = await setup();
    await createWebhook(engine, tenant.id, { url: HOOK, events: ['*'] });
    await inTransaction(engine.db, async (tx) => {
      await emit(tx, engine.clock.now(), tenant.id, 'ecf.accepted', {});
      throw new Error('the fact failed');
    }).catch(() => undefined);
    expect(await engine.db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
    for (let i = 0; i < 2; i++) {
      await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), tenant.id, 'sequence.low', {}, { factKey: 'sequence.low:r1' }));
    }
    expect(await engine.db.selectFrom('webhook_deliveries').selectAll().execute()).toHaveLength(1);
  });

  it('deleting an endpoint removes its pending deliveries at once', async () => {
    const { engine, tenant } = await setup();
    await allowLoopback(engine);
    const { endpoint } = await createWebhook(engine, tenant.id, { url: HOOK, events: ['*'] });
    await emitEvent(engine, tenant.id);
    expect(await engine.db.selectFrom('webhook_deliveries').selectAll().execute()).toHaveLength(1);
    await deleteWebhook(engine, tenant.id, endpoint.id);
    expect(await engine.db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
    await emitEvent(engine, tenant.id);
    expect(await engine.db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
  });
});
