import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine-types.js';
import { buildApp } from '../../src/http/app.js';
import { makeIdentity, makeP12 } from '../certs.js';
import { storedBytes } from '../helpers.js';
import { Findings, leaks, runRequests, type Answer } from './fuzz/check.js';
import { HOSTILE_STRINGS, short, type BodyCase } from './fuzz/mutations.js';
import { multipartCases, multipartBytes, MULTIPART, type Part } from './fuzz/multipart.js';
import { isReceiver, jsonBodies, openApiRoutes, requests, routeName, type FuzzRequest, type OpenApiRoute, type Route } from './fuzz/routes.js';
import { changedTables, snapshotStore } from './fuzz/snapshot.js';
import { WORLD_RNC, buildWorld, type FuzzWorld } from './fuzz/world.js';
import { hostileDocuments, xmlMutations } from './fuzz/xml.js';
import { api } from '../api.js';

/** Fixed seed: every run sends the same requests. */
const SEED = 20_221;
/** Multiplies every case count: FUZZ_API_RUNS=20 (npm run fuzz:api) for a long run. */
const SCALE = Math.max(1, Number(process.env.FUZZ_API_RUNS ?? 1));
/** Fuzzed requests per route: JSON routes, and the multipart ones (certificate upload, receiver). */
const CASES_PER_ROUTE = 60 * SCALE;
const MULTIPART_CASES_PER_ROUTE = 150 * SCALE;
/** Paths that match no route. */
const UNKNOWN_PATH_CASES = 60 * SCALE;
/** A request that takes longer has hung: the property fails, the suite goes on. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Per route, for vitest: all its cases, with room for the slow huge bodies. */
const ROUTE_TEST_TIMEOUT_MS = 60_000 * SCALE;

/** The app's routes, listed from the app itself, so a new route is fuzzed without touching this file. */
const ROUTES: Route[] = await (async () => {
  const listing = await buildApp({ engine: undefined as unknown as Engine });
  const routes = listing.routeAccess.map((r) => ({ method: r.method, url: r.url, access: r.access }));
  await listing.close();
  return routes;
})();

let world: FuzzWorld;
let openapi: Map<string, OpenApiRoute>;
/** A signed seed of this receiver, for validacioncertificado. */
let signedSeed: string;
const findings = new Findings();

beforeAll(async () => {
  const password = 'clave-ñ';
  world = await buildWorld({ file: makeP12(makeIdentity({ serialNumber: `IDCDO-${WORLD_RNC}` }), password), password });
  openapi = openApiRoutes((await api(world.app).get('/api/v1/openapi.json')).json());
  // Every key once, so last_used_at is set before the first snapshot (it changes once per key, on the clock that does not move).
  for (const key of Object.values(world.keys)) await api(world.app).key(key).get('/api/v1/emission');
  const seed = await api(world.app).get(`/${world.tenantId}/fe/autenticacion/api/semilla`);
  signedSeed = world.documents.signSeed(seed.body);
}, 60_000);

afterAll(async () => {
  if (findings.count) console.log(`API fuzz findings (${findings.count}):\n${findings.lines().join('\n')}`);
  await world?.close();
});

const send = async (r: FuzzRequest): Promise<Answer> => {
  const res = await api(world.app).send(r.method, r.url, r.payload, { headers: r.headers });
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body };
};

/** Undoes accepted requests that would hide the other cases: a pause stops issuing, bearer mode closes the receiver. */
async function afterAccepted(request: FuzzRequest): Promise<void> {
  const admin = api(world.app, world.keys).as('admin');
  if (request.url.startsWith('/api/v1/emission/pause')) await admin.post('/api/v1/emission/resume');
  if (request.url.startsWith('/api/v1/inbound-ecf-settings')) await admin.put('/api/v1/inbound-ecf-settings', { requireBearerAuth: false });
}

let canarySeen = 0;
/** Any request reaching the canary since the last look is an external fetch made for a document. */
function canaryHits(): string[] {
  const hits = world.canary.hits();
  const fresh = hits.slice(canarySeen);
  canarySeen = hits.length;
  return fresh.map((h) => `external fetch: ${h}`);
}

const hostileFileContents = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS).map((s) => ({ label: short(JSON.stringify(s)), content: Buffer.from(s) })),
  fc.constantFrom(
    { label: 'nothing', content: Buffer.alloc(0) },
    { label: '1 KiB of zeros', content: Buffer.alloc(1024) },
    { label: '40 KiB of 0xff', content: Buffer.alloc(40_000, 0xff) },
    { label: 'a DER SEQUENCE of absurd length', content: Buffer.from([0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x02, 0x01, 0x03]) },
    { label: 'nested DER sequences', content: Buffer.from(Array.from({ length: 2000 }, () => [0x30, 0x80]).flat()) },
  ),
);

/** The body arbitrary of a route: multipart for the certificate upload and the receiver's document routes, JSON otherwise. */
function bodiesFor(route: Route): { arbitrary: fc.Arbitrary<BodyCase>; cases: number } {
  if (routeName(route) === 'POST /api/v1/certificates') {
    const valid: Part[] = [
      { name: 'password', content: Buffer.from(world.p12.password) },
      { name: 'file', filename: 'firma.p12', content: world.p12.file, contentType: 'application/x-pkcs12' },
    ];
    return { arbitrary: multipartCases(valid, hostileFileContents), cases: MULTIPART_CASES_PER_ROUTE };
  }
  if (isReceiver(route) && route.method === 'POST') {
    const { xml, fileName } = route.url.endsWith('/aprobacioncomercial/api/ecf')
      ? { xml: world.documents.acecf, fileName: world.documents.acecfFileName }
      : route.url.endsWith('/validacioncertificado')
        ? { xml: signedSeed, fileName: 'semilla.xml' }
        : world.documents.ecf();
    const documents = fc.oneof(
      { arbitrary: fc.constantFrom(...hostileDocuments(xml, { canaryUrl: world.canary.url, secretPath: world.secretFile.path })), weight: 3 },
      { arbitrary: xmlMutations(xml), weight: 2 },
    );
    const asUpload = fc.tuple(documents, fc.constantFrom(fileName, 'documento.xml')).map(([d, name]): BodyCase => ({
      label: `${d.label} as ${name}`,
      payload: multipartBytes([{ name: 'xml', filename: name, content: Buffer.from(d.xml), contentType: 'text/xml' }]),
      contentType: MULTIPART,
    }));
    const broken = multipartCases([{ name: 'xml', filename: fileName, content: Buffer.from(xml), contentType: 'text/xml' }], hostileFileContents);
    return { arbitrary: fc.oneof({ arbitrary: asUpload, weight: 3 }, { arbitrary: broken, weight: 1 }), cases: MULTIPART_CASES_PER_ROUTE };
  }
  return { arbitrary: jsonBodies(world, route, openapi.get(routeName(route))).arbitrary, cases: CASES_PER_ROUTE };
}

describe('API fuzz: every route, mutated and hostile requests', () => {
  it('lists the routes of the app it runs against (a new route is fuzzed too)', () => {
    const live = world.app.routeAccess.map((r) => routeName(r)).sort();
    expect(ROUTES.map(routeName).sort()).toEqual(live);
    expect(ROUTES.some((r) => r.access === 'receiver')).toBe(true);
  });

  it('sees a stored change in its snapshot (the check of rejected requests can fail)', async () => {
    const before = await snapshotStore(world.engine);
    const res = await api(world.app, world.keys).as('admin').post('/api/v1/sequences/allocate', { environment: 'test', type: 47 });
    expect(res.statusCode).toBe(200);
    const after = await snapshotStore(world.engine);
    expect(changedTables(before, after)).toEqual(['sequence_ranges']);
  });

  for (const route of ROUTES) {
    it(`${routeName(route)}: never a 5xx or a hang; a 4xx is a problem and changes nothing stored`, async () => {
      const before = findings.count;
      const { arbitrary, cases } = bodiesFor(route);
      const extraHeaders =
        routeName(route) === 'POST /api/v1/ecf'
          ? fc.oneof(
              { arbitrary: fc.nat().map((n): Record<string, string> => ({ 'idempotency-key': `fuzz-${n}` })), weight: 8 },
              { arbitrary: fc.constantFrom<Record<string, string>>({}, { 'idempotency-key': '' }, { 'idempotency-key': 'k'.repeat(5000) }, { 'idempotency-key': 'ñ\u00ff' }, { 'idempotency-key': 'fuzz-seed-1' }), weight: 1 },
            )
          : undefined;
      const queryNames = openapi.get(routeName(route))?.queryNames ?? [];
      const sample = fc.sample(requests(world, route, { queryNames, body: arbitrary, ...(extraHeaders && { extraHeaders }) }), { seed: SEED, numRuns: cases });
      await runRequests(world, route, sample, { timeoutMs: REQUEST_TIMEOUT_MS, findings, send, afterAccepted, sideEffects: canaryHits });
      expect(findings.count - before, findings.lines().filter((l) => l.startsWith(`${routeName(route)}:`)).join('\n')).toBe(0);
    }, ROUTE_TEST_TIMEOUT_MS);
  }

  it('answers a path that matches no route with a 404 problem (or plain text under a receiver path)', async () => {
    const before = findings.count;
    const paths = fc.oneof(
      fc.constantFrom('/', '/api', '/api/v1', '/api/v2/ecf', '/api/v1/ecf/', '/api/v1//ecf', '/api/v1/ecf/%', '/api/v1/%2e%2e/%2e%2e/etc/passwd', '/__proto__', '/api/v1/constructor', `/${'a'.repeat(10_000)}`),
      fc.webPath().map((p) => `/api/v1${p}`),
      fc.constantFrom('/00000000-0000-0000-0000-000000000000/fe/recepcion/api/ecf', '/0190A3C2-0000-7000-8000-000000000000/FE/autenticacion/api/semilla'),
    );
    const methods = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS');
    const sample = fc.sample(fc.tuple(methods, paths), { seed: SEED, numRuns: UNKNOWN_PATH_CASES });
    // No route: the 404 problem. A receiver path with its route's method reaches the receiver, which answers in plain text.
    const route = (method: string, url: string): Route => {
      const receiver = ROUTES.find((r) => isReceiver(r) && r.method === method && new RegExp(`^${r.url.replace(/:[A-Za-z]+/g, '[^/]+')}$`, 'i').test(url));
      return receiver ?? { method, url, access: 'public' };
    };
    const sent = sample.map(([method, url]): FuzzRequest => ({ method, url, headers: {}, label: `${method} ${short(url)}` }));
    await runRequests(world, (r) => route(r.method, r.url), sent, { timeoutMs: REQUEST_TIMEOUT_MS, findings, send });
    expect(findings.count - before, findings.lines().join('\n')).toBe(0);
  }, ROUTE_TEST_TIMEOUT_MS);

  it('stores no file content and made no external fetch, whatever the documents asked for', async () => {
    expect(world.canary.hits()).toEqual([]);
    expect(leaks(world, (await storedBytes(world.engine)).toString('latin1'))).toBeNull();
  });
});
