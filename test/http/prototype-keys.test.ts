import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { emitterProfile, invoice31, seedIssuer, testEngine } from '../helpers.js';
import { api } from '../api.js';

/**
 * Property names every plain object inherits: a map built on `{}` finds them
 * before anything is stored under them. As keys of a JSON body they are
 * ordinary unknown fields (a 400 naming them), never a 500.
 */
const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf', '__defineGetter__'];

/** JSON text with `name` as a key: an object literal with "__proto__" would set the prototype instead. */
const withKey = (value: Record<string, unknown>, name: string, inner: unknown = 1): string => {
  const text = JSON.stringify(value);
  const rest = text.slice(1);
  return `{${JSON.stringify(name)}:${JSON.stringify(inner)}${rest === '}' ? '' : ','}${rest}`;
};

async function setup() {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const { keys } = await seedIssuer(engine);
  const webhook = await api(app, keys).as('admin_tenant').post('/api/v1/webhooks', { url: 'https://93.184.216.34/hook', events: ['*'] });
  return { engine, app, key: keys.admin_tenant, webhookId: webhook.json().endpoint.id as string };
}

const profile = emitterProfile;

/** Each route with a body: how to put a prototype name at the top and one level down. */
const ROUTES = (webhookId: string) => [
  { method: 'POST', url: '/api/v1/ecf', top: (n: string) => withKey(invoice31(), n), nested: (n: string) => JSON.stringify(invoice31({ buyer: JSON.parse(withKey({ rnc: '131880681', name: 'X' }, n)) })) },
  { method: 'POST', url: '/api/v1/webhooks', top: (n: string) => withKey({ url: 'https://93.184.216.34/a', events: ['*'] }, n), nested: (n: string) => JSON.stringify({ url: 'https://93.184.216.34/a', events: [JSON.parse(withKey({}, n))] }) },
  { method: 'PATCH', url: `/api/v1/webhooks/${webhookId}`, top: (n: string) => withKey({ enabled: true }, n), nested: (n: string) => withKey({}, 'enabled', JSON.parse(withKey({}, n))) },
  { method: 'PUT', url: '/api/v1/emitter-profile', top: (n: string) => withKey(profile, n), nested: (n: string) => JSON.stringify({ ...profile, phones: [JSON.parse(withKey({}, n))] }) },
  { method: 'POST', url: '/api/v1/sequences/allocate', top: (n: string) => withKey({ environment: 'test', type: 31 }, n), nested: (n: string) => withKey({ environment: 'test' }, 'type', JSON.parse(withKey({}, n))) },
  {
    method: 'POST',
    url: '/api/v1/sequences/annulments',
    top: (n: string) => withKey({ environment: 'test', reason: 'x', lines: [{ type: 31, from: 900, to: 900 }] }, n),
    nested: (n: string) => JSON.stringify({ environment: 'test', reason: 'x', lines: [JSON.parse(withKey({ type: 31, from: 900, to: 900 }, n))] }),
  },
];

describe('prototype property names in a JSON body', () => {
  it('get a 400 problem naming the field on every route that takes a body, top level and nested', async () => {
    const { app, key, webhookId, engine } = await setup();
    const before = await engine.db.selectFrom('ecf').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const route of ROUTES(webhookId)) {
      for (const name of PROTOTYPE_NAMES) {
        for (const [where, payload] of [['top', route.top(name)], ['nested', route.nested(name)]] as const) {
          const res = await api(app).key(key).send(route.method as 'POST', route.url, payload, { headers: { 'content-type': 'application/json', 'idempotency-key': `proto-${name}-${where}` } });
          const label = `${route.method} ${route.url} ${where} ${name}: ${res.body}`;
          expect(res.statusCode, label).toBeGreaterThanOrEqual(400);
          expect(res.statusCode, label).toBeLessThan(500);
          expect(res.headers['content-type'], label).toContain('application/problem+json');
          const body = res.json();
          expect(body.status, label).toBe(res.statusCode);
          expect(body.detail, label).not.toMatch(/is not a function/);
          // Bodies that reach validation name the field; "__proto__" is refused by the JSON parser first.
          if (body.code === 'Validation.Failed') {
            expect(Object.getPrototypeOf(body.errors), label).toBe(Object.prototype);
            expect(body.fieldErrors.length, label).toBeGreaterThan(0);
            for (const e of body.fieldErrors as { path: string; message: string }[]) expect(Object.hasOwn(body.errors, e.path), label).toBe(true);
          }
        }
      }
    }
    const after = await engine.db.selectFrom('ecf').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('lists each message under its own path, the prototype name among them', async () => {
    const { app, key } = await setup();
    const res = await api(app).key(key).post('/api/v1/sequences/allocate', '{"environment":"test","type":31,"constructor":1,"toString":2}', { headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('Validation.Failed');
    expect(Object.keys(body.errors).sort()).toEqual(['constructor', 'toString']);
    expect(body.errors.constructor).toEqual([expect.any(String)]);
  });

  it('as query parameter names get a 400 naming them', async () => {
    const { app, key } = await setup();
    for (const name of PROTOTYPE_NAMES) {
      const res = await api(app).key(key).get(`/api/v1/ecf?${name}=1`);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(400);
      expect(res.json().code, name).toBe('Validation.Failed');
      expect(res.json().fieldErrors.map((e: { path: string }) => e.path), name).toContain(`query.${name}`);
    }
  });
});
