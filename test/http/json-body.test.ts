import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildApp } from '../../src/http/app.js';
import { MAX_JSON_DEPTH, jsonDepthExceeds } from '../../src/http/json-body.js';
import { invoice31, seedIssuer, testEngine } from '../helpers.js';
import { api } from '../api.js';

/** `levels` objects one inside the other, the innermost holding 1. */
const nested = (levels: number): string => '{"a":'.repeat(levels - 1) + '{"a":1}' + '}'.repeat(levels - 1);

/** The nesting depth of a parsed value (the plain definition the text scan must agree with). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value as object);
  return 1 + children.reduce((m: number, c) => Math.max(m, depthOf(c)), 0);
}

describe('jsonDepthExceeds', () => {
  it('agrees with the depth of the parsed value, brackets inside strings aside (fast-check, fixed seed)', () => {
    const tricky = fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"[', 'ñ', '\u2028');
    const json = fc.jsonValue({ maxDepth: 8 }).chain((v) =>
      fc.array(tricky, { maxLength: 3 }).map((extra) => JSON.stringify({ s: extra.join(''), v }, null, extra.length % 2 === 0 ? 0 : 1)),
    );
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 10 }), (text, limit) => jsonDepthExceeds(text, limit) === depthOf(JSON.parse(text)) > limit),
      { seed: 2205, numRuns: 3000 },
    );
  });
});

describe('JSON request bodies', () => {
  async function setup() {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const { keys } = await seedIssuer(engine);
    return { engine, app, key: keys.admin_tenant };
  }

  const post = (app: Awaited<ReturnType<typeof setup>>['app'], key: string, url: string, payload: string, method = 'POST') =>
    api(app).key(key).send(method as 'POST', url, payload, { headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' } });

  it('nested 5,000 levels deep get a 400 Http.BodyTooDeep naming the limit on POST /ecf, and nothing is issued', async () => {
    const { app, key, engine } = await setup();
    const body = JSON.stringify(invoice31()).slice(0, -1) + `,"extra":${nested(5000)}}`;
    const res = await post(app, key, '/api/v1/ecf', body);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code: 'Http.BodyTooDeep' });
    expect(res.json().detail).toContain(String(MAX_JSON_DEPTH));
    const count = await engine.db.selectFrom('ecf').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it(`are read up to ${MAX_JSON_DEPTH} levels and refused one past it`, async () => {
    const { app, key } = await setup();
    const at = await post(app, key, '/api/v1/sequences/allocate', nested(MAX_JSON_DEPTH));
    expect(at.json().code).toBe('Validation.Failed'); // parsed, then refused for its fields
    const past = await post(app, key, '/api/v1/sequences/allocate', nested(MAX_JSON_DEPTH + 1));
    expect(past.json().code).toBe('Http.BodyTooDeep');
    // Brackets in strings are text, not nesting.
    const text = await post(app, key, '/api/v1/sequences/allocate', JSON.stringify({ environment: 'test', type: '['.repeat(500) }));
    expect(text.json().code).toBe('Validation.Failed');
  });

  it('on every route that reads one', async () => {
    const { app, key } = await setup();
    const deep = nested(1000);
    for (const [method, url] of [
      ['POST', '/api/v1/ecf/validate'],
      ['POST', '/api/v1/webhooks'],
      ['PATCH', '/api/v1/webhooks/0194d2a8-0000-7000-8000-000000000000'],
      ['PUT', '/api/v1/emitter-profile'],
      ['POST', '/api/v1/sequences/allocate'],
      ['POST', '/api/v1/sequences/annulments'],
      ['PUT', '/api/v1/inbound-ecf-settings'],
      ['POST', '/api/v1/organizations/0194d2a8-0000-7000-8000-000000000000/tenants'],
    ] as const) {
      const res = await post(app, key, url, deep, method);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(500);
      // Access is checked first (a tenant key on an organization route is a 403); past it, the depth.
      if (res.statusCode === 400) expect(res.json().code, `${method} ${url}`).toBe('Http.BodyTooDeep');
    }
  });

  it('with a __proto__ key, plain or escaped, get a 400 that names it', async () => {
    const { app, key } = await setup();
    for (const body of ['{"__proto__":{"x":1}}', '{"a":[{"\\u005f_proto__":1}]}', '{"constructor":{"prototype":{"x":1}}}']) {
      const res = await post(app, key, '/api/v1/sequences/allocate', body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json().code, body).toBe('Http.ForbiddenPropertyName');
    }
    // "constructor" alone is an unknown field like any other.
    const plain = await post(app, key, '/api/v1/sequences/allocate', '{"environment":"test","type":31,"constructor":{"a":1}}');
    expect(plain.json().errors).toEqual({ constructor: [expect.any(String)] });
  });

  it('that are not JSON or empty keep their codes, with the parser’s reason', async () => {
    const { app, key } = await setup();
    const bad = await post(app, key, '/api/v1/sequences/allocate', '{"environment":');
    expect(bad.json()).toMatchObject({ status: 400, code: 'Http.CTP_INVALID_JSON_BODY' });
    const empty = await post(app, key, '/api/v1/sequences/allocate', '');
    expect(empty.json()).toMatchObject({ status: 400, code: 'Http.CTP_EMPTY_JSON_BODY' });
  });
});

describe('A URL the router cannot read', () => {
  it('gets a 400 problem under /api/v1 and plain text under a receiver path', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    for (const method of ['GET', 'POST', 'OPTIONS'] as const) {
      const res = await api(app).send(method, '/api/v1/ecf/%');
      expect(res.statusCode, method).toBe(400);
      expect(res.headers['content-type'], method).toContain('application/problem+json');
      expect(res.json(), method).toMatchObject({ status: 400, code: 'Http.BAD_URL', instance: '/api/v1/ecf/%' });
      expect(res.json().requestId).toBe(res.headers['x-request-id']);
    }
    const receiver = await api(app).post('/0194d2a8-0000-7000-8000-000000000000/fe/recepcion/api/%zz');
    expect(receiver.statusCode).toBe(400);
    expect(receiver.headers['content-type']).toContain('text/plain');
  });
});
