import fc from 'fast-check';
import type { Access } from '../../../src/http/access.js';
import { invoice31 } from '../../fixtures/payloads.js';
import type { FuzzWorld } from './world.js';
import { HOSTILE_STRINGS, PROTOTYPE_NAMES, bodyCases, short, type BodyCase } from './mutations.js';

/** One route of the app as its access table lists it. */
export interface Route {
  readonly method: string;
  readonly url: string;
  readonly access: Access;
}

export const routeName = (r: Pick<Route, 'method' | 'url'>) => `${r.method} ${r.url}`;
export const isReceiver = (r: Route) => r.access === 'receiver' || r.access === 'receiver-auth';

/** The request the fuzzer sends: everything inject() needs, plus a label for the report. */
export interface FuzzRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly payload?: string | Buffer;
  readonly label: string;
}

/**
 * Valid bodies of the JSON routes, keyed `METHOD url`. A route missing here
 * (a new one) gets a body sampled from its OpenAPI request schema, so it is
 * fuzzed all the same.
 */
export function validBodies(world: FuzzWorld): Record<string, () => unknown> {
  let sequence = 900_000;
  let rnc = 140_000_000;
  return {
    'POST /api/v1/ecf/validate': () => invoice31(),
    'POST /api/v1/ecf': () => invoice31(),
    'PUT /api/v1/emitter-profile': () => ({
      address: 'Calle El Conde 12',
      municipality: '010100',
      province: '010000',
      email: 'caja@ferreteria.do',
      economicActivity: 'Venta de herramientas',
      phones: ['809-555-1234'],
    }),
    'POST /api/v1/emission/pause': () => ({ reason: 'Cierre de caja', until: '2026-03-11T08:00:00-04:00' }),
    'POST /api/v1/emission/resume': () => ({ reason: 'Abierto' }),
    'POST /api/v1/organizations/:id/tenants': () => ({ rnc: String(++rnc), legalName: 'Colmado La Esquina SRL', tradeName: 'La Esquina' }),
    'POST /api/v1/sequences/allocate': () => ({ environment: 'test', type: 32 }),
    'POST /api/v1/sequences/annulments': () => {
      const n = ++sequence;
      return { environment: 'test', reason: 'Números dañados', lines: [{ type: 33, series: 'E', rangeFrom: n, rangeTo: n }] };
    },
    'POST /api/v1/webhooks': () => ({ url: 'http://127.0.0.1:9/hook', events: ['ecf.*', 'inbound_ecf.received'], description: 'ERP' }),
    'PATCH /api/v1/webhooks/:id': () => ({ url: 'http://127.0.0.1:9/other', events: ['*'], description: 'ERP', enabled: true }),
    'PUT /api/v1/inbound-ecf-settings': () => ({ requireBearerAuth: false }),
    'POST /api/v1/received-ecf/:id/commercial-approval': () => ({ decision: 'rejected', rejectionReason: 'Mercancía dañada' }),
  };
}

/** An id no object has (fixed, so a seed replays the same requests). */
export const UNKNOWN_ID = '0190a3c2-0000-7000-8000-00000000f022';

/** The real object a route's `:id` names, or null when the fuzzer should not touch a real one (revoke, delete). */
function realId(world: FuzzWorld, route: Route, param: string): string | null {
  if (param === 'tenantId') return world.tenantId;
  if (param === 'deliveryId') return null;
  if (/revoke$/.test(route.url) || route.method === 'DELETE') return null;
  const family: [RegExp, string][] = [
    [/^\/api\/v1\/ecf\//, world.ids.ecf],
    [/^\/api\/v1\/certificates\//, world.ids.certificate],
    [/^\/api\/v1\/webhooks\//, world.ids.webhook],
    [/^\/api\/v1\/received-ecf\//, world.ids.receivedEcf],
    [/^\/api\/v1\/sequences\/annulments\//, world.ids.annulment],
    [/^\/api\/v1\/organizations\//, world.organizationId],
  ];
  return family.find(([re]) => re.test(route.url))?.[1] ?? null;
}

/** A path parameter: mostly the real object, sometimes an unknown id or a hostile string. */
function paramValue(world: FuzzWorld, route: Route, param: string): fc.Arbitrary<string> {
  const real = realId(world, route, param);
  return fc.oneof(
    { arbitrary: fc.constant(real ?? UNKNOWN_ID), weight: 8 },
    { arbitrary: fc.constant(UNKNOWN_ID), weight: 1 },
    { arbitrary: fc.constantFrom(...(real ? [real.toUpperCase()] : []), ...HOSTILE_STRINGS.filter((s) => s.length < 200), ...PROTOTYPE_NAMES), weight: 1 },
  );
}

/** Percent-encoding of any text, lone surrogates included (encodeURIComponent throws on those). */
export const percentEncode = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`)).join('');

/** Query parameters from the OpenAPI document: plausible values, hostile ones, prototype names and repeats. */
function queryString(names: readonly string[]): fc.Arbitrary<string> {
  const value = fc.oneof(
    fc.constantFrom('1', '0', '-1', '31', 'true', 'false', 'test', 'production', 'received', 'accepted', 'letter', 'pos', '2', '2026-03-10', '99999999999999999999', '1e3', '[]', '{}'),
    fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length < 200)),
    fc.string({ maxLength: 20 }),
  );
  const pair = fc.tuple(fc.oneof({ arbitrary: fc.constantFrom(...(names.length ? names : ['x'])), weight: 4 }, { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES, 'unknown'), weight: 1 }), value);
  return fc.oneof(
    { arbitrary: fc.constant(''), weight: 2 },
    { arbitrary: fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&')), weight: 6 },
    { arbitrary: fc.constantFrom('%', '%zz', '&&&', '=', 'a[b]=1&a[c]=2', `x=${'y'.repeat(50_000)}`, '%ff%fe=%c0%af'), weight: 1 },
  );
}

/** The API key a route wants, mostly; sometimes none, a wrong one or a hostile one. */
function apiKey(world: FuzzWorld, route: Route): fc.Arbitrary<string | undefined> {
  const right = typeof route.access === 'object' ? world.keys.organization : world.keys.admin;
  return fc.oneof(
    { arbitrary: fc.constant(right), weight: 12 },
    { arbitrary: fc.constantFrom(undefined, '', 'ecf_live_nope', 'x'.repeat(10_000), '\u00ff\u00fe', `${right} `, right.slice(0, -1)), weight: 1 },
  );
}

/**
 * Every request the fuzzer may send to `route`: its path parameters, query,
 * key and a body case built from `valid` (or from the route's special form:
 * multipart for certificates and the receiver).
 */
export function requests(world: FuzzWorld, route: Route, options: { queryNames: readonly string[]; body: fc.Arbitrary<BodyCase>; extraHeaders?: fc.Arbitrary<Record<string, string>> }): fc.Arbitrary<FuzzRequest> {
  const params = [...route.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  const paramValues = fc.tuple(...params.map((p) => paramValue(world, route, p)));
  return fc
    .record({
      params: params.length ? paramValues : fc.constant([] as string[]),
      query: queryString(options.queryNames),
      key: isReceiver(route) ? fc.constant(undefined) : apiKey(world, route),
      body: options.body,
      extra: options.extraHeaders ?? fc.constant({}),
    })
    .map(({ params: values, query, key, body, extra }) => {
      let i = 0;
      const path = route.url.replace(/:([A-Za-z]+)/g, () => percentEncode(values[i++]!));
      const headers: Record<string, string> = { ...extra };
      if (key !== undefined) headers['x-api-key'] = key;
      if (body.contentType !== undefined) headers['content-type'] = body.contentType;
      return {
        method: route.method,
        url: query ? `${path}?${query}` : path,
        headers,
        ...(body.payload !== undefined && { payload: body.payload }),
        label: `${route.method} ${short(path, 120)}${query ? `?${short(query)}` : ''} [${body.label}]`,
      };
    });
}

/** A body that fits a JSON schema, roughly: required properties with a value of their type. For routes without a known valid body. */
export function sampleOf(schema: Record<string, unknown> | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return {};
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const alternatives = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (alternatives?.length) return sampleOf(alternatives[0], depth + 1);
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sampleOf(v, depth + 1)]));
    }
    case 'array':
      return [sampleOf(schema.items as Record<string, unknown>, depth + 1)];
    case 'integer':
    case 'number':
      return (schema.minimum as number | undefined) ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'x';
  }
}

/** The JSON body arbitrary of a route: mutations of its valid body, or of one sampled from the OpenAPI schema. */
export function jsonBodies(world: FuzzWorld, route: Route, openapi: OpenApiRoute | undefined, bodies = validBodies(world)): { arbitrary: fc.Arbitrary<BodyCase>; source: 'known' | 'openapi' | 'none' } {
  const known = bodies[routeName(route)];
  if (known) return { arbitrary: fc.constant(null).chain(() => bodyCases(known())), source: 'known' };
  if (openapi?.bodySchema) return { arbitrary: bodyCases(sampleOf(openapi.bodySchema)), source: 'openapi' };
  return { arbitrary: bodyCases({}), source: 'none' };
}

export interface OpenApiRoute {
  readonly queryNames: string[];
  readonly bodySchema?: Record<string, unknown>;
}

/** What the OpenAPI document says of each operation: its query names and JSON body schema, keyed `METHOD url` in fastify's `:param` form. */
export function openApiRoutes(doc: { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content: Record<string, { schema?: Record<string, unknown> }> } }>> }): Map<string, OpenApiRoute> {
  const out = new Map<string, OpenApiRoute>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const url = path.replace(/\{([A-Za-z]+)\}/g, ':$1');
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      out.set(`${method.toUpperCase()} ${url}`, {
        queryNames: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        ...(bodySchema && { bodySchema }),
      });
    }
  }
  return out;
}
