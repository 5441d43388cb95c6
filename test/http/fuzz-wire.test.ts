import fc from 'fast-check';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeIdentity, makeP12 } from '../certs.js';
import { Findings, HangError, answerViolations, type Answer } from './fuzz/check.js';
import { INVALID_UTF8, short } from './fuzz/mutations.js';
import { MULTIPART, multipartBytes } from './fuzz/multipart.js';
import type { Route } from './fuzz/routes.js';
import { startWireServer, httpRequest, rawRequest, stalledRequest, type RawAnswer, type WireServer } from './fuzz/wire.js';
import { WORLD_RNC } from './fuzz/world.js';
import { invoice31 } from '../fixtures/payloads.js';
import { hostileDocuments } from './fuzz/xml.js';

/**
 * The fuzz on the wire: the app listens on loopback in a child process
 * (fuzz/serve-world.ts), and the requests go as raw bytes, so a body can be
 * cut, stall or carry bytes no client library would send, and a request that
 * blocks the server shows as a timeout here (the child is killed) instead of
 * a frozen test run.
 */

/** Fixed seed: every run sends the same bytes. */
const SEED = 20_222;
/** Multiplies every case count: FUZZ_API_RUNS=20 (npm run fuzz:api) for a long run. */
const SCALE = Math.max(1, Number(process.env.FUZZ_API_RUNS ?? 1));
const TRUNCATION_CASES = 30 * SCALE;
const INVALID_UTF8_CASES = 30 * SCALE;
/** Connections left stalled mid-request at once. */
const STALLED_CONNECTIONS = 20;
/** A request, or a question to the child, that takes longer has hung. */
const REQUEST_TIMEOUT_MS = 10_000;
const START_TIMEOUT_MS = 60_000;
/** The longest a server may wait for the rest of a request before it gives up on the client. */
const MAX_REQUEST_RECEIVE_MS = 120_000;
const TEST_TIMEOUT_MS = 90_000 * SCALE;

let server: WireServer;
/** Every finding of the file, logged at the end (each test also fails on its own). */
const allFindings: string[] = [];
const p12Password = 'clave-ñ';
const p12 = makeP12(makeIdentity({ serialNumber: `IDCDO-${WORLD_RNC}` }), p12Password);

beforeAll(async () => {
  server = await startWireServer({ file: p12, password: p12Password }, START_TIMEOUT_MS);
  // Each key once, so last_used_at is set before the first snapshot.
  for (const key of Object.values(server.world.keys)) await rawRequest(server.world.port, httpRequest('GET', '/api/v1/emission', { 'x-api-key': key }), { ms: REQUEST_TIMEOUT_MS });
}, START_TIMEOUT_MS + 10_000);

afterAll(async () => {
  if (allFindings.length) console.log(`Wire fuzz findings:\n${allFindings.join('\n')}`);
  await server?.stop();
});

const receiverRoute = (url: string): Route => ({ method: 'POST', url, access: 'receiver' });
const apiRoute = (method: string, url: string): Route => ({ method, url, access: 'public' });
const secrets = () => ({ secretFile: { path: server.world.secretPath, token: server.world.secretToken } });

/**
 * Sends raw bytes and checks the properties: an answer in time (or, for a
 * request the client cut short, a closed connection), no 5xx, a problem (or
 * receiver plain text) on a 4xx, nothing stored changed on a 4xx, no
 * external fetch, and the server still answering afterwards.
 */
async function check(findings: Findings, route: Route, label: string, bytes: Buffer, options: { halfClose?: boolean; noAnswerOk?: boolean } = {}): Promise<RawAnswer | null> {
  const before = await server.ask<string>('snapshot', REQUEST_TIMEOUT_MS);
  let answer: RawAnswer;
  try {
    answer = await rawRequest(server.world.port, bytes, { ms: REQUEST_TIMEOUT_MS, ...(options.halfClose && { halfClose: true }) });
  } catch (e) {
    findings.add(route, e instanceof HangError ? 'hang' : `request failed: ${(e as Error).message}`, label);
    throw e; // a hung server would hang every later case: stop here
  }
  if (answer.status === null) {
    if (!options.noAnswerOk) findings.add(route, 'connection closed without an answer', label);
  } else {
    const a: Answer = { status: answer.status, contentType: answer.headers['content-type'] ?? '', body: answer.body };
    for (const v of answerViolations(secrets(), route, a)) findings.add(route, v, `${label} -> ${short(answer.body, 200)}`);
  }
  if (answer.status === null || answer.status >= 400) {
    const after = await server.ask<string>('snapshot', REQUEST_TIMEOUT_MS);
    if (after !== before) findings.add(route, `rejected (${answer.status ?? 'closed'}) but stored changed`, label);
  }
  const hits = await server.ask<string[]>('canary', REQUEST_TIMEOUT_MS);
  if (hits.length) findings.add(route, `external fetch: ${hits.join(', ')}`, label);
  const alive = await rawRequest(server.world.port, httpRequest('GET', '/api/v1/emission', { 'x-api-key': server.world.keys.admin }), { ms: REQUEST_TIMEOUT_MS });
  if (alive.status !== 200) findings.add(route, `server unwell afterwards (${alive.status ?? 'closed'})`, label);
  return answer;
}

const expectNoFindings = (findings: Findings) => {
  allFindings.push(...findings.lines());
  expect(findings.lines(), findings.lines().join('\n')).toEqual([]);
};

describe('API fuzz on the wire: raw bytes to a listening server', () => {
  it('cut multipart bodies on the certificate upload and the receiver: a 400, nothing stored', async () => {
    const findings = new Findings();
    const upload = multipartBytes([
      { name: 'password', content: Buffer.from(p12Password) },
      { name: 'file', filename: 'firma.p12', content: p12, contentType: 'application/x-pkcs12' },
    ]);
    const xml = multipartBytes([{ name: 'xml', filename: server.world.ecf.fileName, content: Buffer.from(server.world.ecf.xml), contentType: 'text/xml' }]);
    const targets = [
      { route: apiRoute('POST', '/api/v1/certificates'), path: '/api/v1/certificates', body: upload, headers: { 'x-api-key': server.world.keys.admin } as Record<string, string> },
      { route: receiverRoute('/:tenantId/fe/recepcion/api/ecf'), path: `/${server.world.tenantId}/fe/recepcion/api/ecf`, body: xml, headers: {} as Record<string, string> },
    ];
    // Anywhere, or in the last bytes, where the closing boundary is cut (the case that used to be a 500).
    const cutAt = fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }).map((f) => (n: number) => Math.floor(f * (n - 1))), fc.integer({ min: 1, max: 60 }).map((k) => (n: number) => n - k));
    const cases = fc.sample(fc.tuple(fc.constantFrom(...targets), cutAt, fc.boolean()), { seed: SEED, numRuns: TRUNCATION_CASES });
    for (const [t, at, honest] of cases) {
      const cut = at(t.body.length);
      const sent = t.body.subarray(0, cut);
      // honest: Content-Length says what was sent (a complete HTTP body holding a cut multipart);
      // otherwise it promises the whole body and the client half-closes after the cut.
      const bytes = httpRequest('POST', t.path, { ...t.headers, 'content-type': MULTIPART, 'content-length': String(honest ? sent.length : t.body.length) }, sent);
      // A body cut short on the wire fails in the HTTP parser, before any route: a problem body then, receiver path or not.
      await check(findings, honest ? t.route : apiRoute('POST', t.path), `${t.path} cut at ${cut}/${t.body.length}${honest ? '' : ', client stops'}`, bytes, { halfClose: !honest, noAnswerOk: !honest });
    }
    expectNoFindings(findings);
  }, TEST_TIMEOUT_MS);

  it('invalid UTF-8 in bodies, header values, paths and query strings: never a 5xx', async () => {
    const findings = new Findings();
    const key = server.world.keys.admin;
    const json = Buffer.from(JSON.stringify(invoice31()));
    const places = fc.constantFrom('body', 'api key', 'idempotency key', 'path', 'query', 'multipart password', 'file name');
    const cases = fc.sample(fc.tuple(places, fc.constantFrom(...INVALID_UTF8), fc.nat({ max: json.length })), { seed: SEED, numRuns: INVALID_UTF8_CASES });
    for (const [place, bad, at] of cases) {
      const route = apiRoute('POST', place.startsWith('multipart') || place === 'file name' ? '/api/v1/certificates' : '/api/v1/ecf');
      let bytes: Buffer;
      const jsonHeaders = { 'content-type': 'application/json', 'x-api-key': key, 'idempotency-key': `wire-${at}` };
      if (place === 'body') bytes = httpRequest('POST', '/api/v1/ecf', jsonHeaders, Buffer.concat([json.subarray(0, at), bad, json.subarray(at)]));
      else if (place === 'api key') bytes = httpRequest('POST', '/api/v1/ecf', { ...jsonHeaders, 'x-api-key': Buffer.concat([Buffer.from(key.slice(0, 10)), bad]) }, json);
      else if (place === 'idempotency key') bytes = httpRequest('POST', '/api/v1/ecf', { ...jsonHeaders, 'idempotency-key': Buffer.concat([Buffer.from('k-'), bad]) }, json);
      else if (place === 'path') bytes = httpRequest('GET', Buffer.concat([Buffer.from('/api/v1/ecf/'), bad]), { 'x-api-key': key });
      else if (place === 'query') bytes = httpRequest('GET', Buffer.concat([Buffer.from('/api/v1/ecf?Search='), bad]), { 'x-api-key': key });
      else {
        const body = multipartBytes([
          { name: 'password', content: place === 'multipart password' ? Buffer.concat([Buffer.from('clave'), bad]) : Buffer.from(p12Password) },
          { name: 'file', filename: place === 'file name' ? `firma${bad.toString('latin1')}.p12` : 'firma.p12', content: p12, contentType: 'application/x-pkcs12' },
        ]);
        bytes = httpRequest('POST', '/api/v1/certificates', { 'content-type': MULTIPART, 'x-api-key': key }, body);
      }
      await check(findings, route, `${place} with bytes ${bad.toString('hex')} (at ${at})`, bytes, { noAnswerOk: false });
    }
    expectNoFindings(findings);
  }, TEST_TIMEOUT_MS);

  it('hostile XML on the receiver routes over the wire: answered in time, no fetch, no leak', async () => {
    const findings = new Findings();
    const { world } = server;
    const targets = [
      { path: `/${world.tenantId}/fe/recepcion/api/ecf`, url: '/:tenantId/fe/recepcion/api/ecf', xml: world.ecf.xml, fileName: world.ecf.fileName },
      { path: `/${world.tenantId}/fe/aprobacioncomercial/api/ecf`, url: '/:tenantId/fe/aprobacioncomercial/api/ecf', xml: world.acecf.xml, fileName: world.acecf.fileName },
      { path: `/${world.tenantId}/fe/autenticacion/api/validacioncertificado`, url: '/:tenantId/fe/autenticacion/api/validacioncertificado', xml: world.acecf.xml.replace(/<ACECF[\s\S]*$/, '<SemillaModel><valor>x</valor><fecha>2026-03-10T10:00:00</fecha></SemillaModel>'), fileName: 'semilla.xml' },
    ];
    for (const t of targets) {
      for (const doc of hostileDocuments(t.xml, { canaryUrl: world.canaryUrl, secretPath: world.secretPath })) {
        const body = multipartBytes([{ name: 'xml', filename: t.fileName, content: Buffer.from(doc.xml), contentType: 'text/xml' }]);
        await check(findings, receiverRoute(t.url), `${doc.label} to ${t.url}`, httpRequest('POST', t.path, { 'content-type': MULTIPART }, body));
      }
    }
    expect(await server.ask<string | null>('leaks', REQUEST_TIMEOUT_MS)).toBeNull();
    expectNoFindings(findings);
  }, TEST_TIMEOUT_MS);

  it('malformed HTTP (bad chunking, smuggling headers, huge headers, garbage lines): never a 5xx, the server keeps answering', async () => {
    const findings = new Findings();
    const key = server.world.keys.admin;
    const json = JSON.stringify(invoice31());
    const cases: [string, Buffer][] = [
      ['bad chunk size', Buffer.from(`POST /api/v1/ecf/validate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n${json}\r\n0\r\n\r\n`)],
      ['chunk longer than said', Buffer.from(`POST /api/v1/ecf/validate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n${json}\r\n0\r\n\r\n`)],
      ['Content-Length and Transfer-Encoding', Buffer.from(`POST /api/v1/ecf/validate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`)],
      ['two Content-Lengths', Buffer.from(`POST /api/v1/ecf/validate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`)],
      ['negative Content-Length', Buffer.from(`POST /api/v1/ecf/validate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n{}`)],
      ['Content-Length over the limit', httpRequest('POST', '/api/v1/emitter-profile', { 'x-api-key': key, 'content-type': 'application/json', 'content-length': '99999999999' })],
      ['80 KB header', httpRequest('GET', '/api/v1/emission', { 'x-api-key': key, 'x-filler': 'a'.repeat(80_000) })],
      ['garbage request line', Buffer.from('\u0000\u0001\u0002 / HTTP/1.1\r\n\r\n')],
      ['unknown method', httpRequest('BREW', '/api/v1/ecf', { 'x-api-key': key })],
      ['HTTP/0.9 line', Buffer.from('GET /api/v1/emission\r\n\r\n')],
      ['space in the path', httpRequest('GET', '/api/v1/ecf /x', { 'x-api-key': key })],
      ['header without colon', Buffer.from(`GET /api/v1/emission HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-api-key ${key}\r\n\r\n`)],
      ['bare LF line ends', Buffer.from(`GET /api/v1/emission HTTP/1.1\nHost: x\nConnection: close\nx-api-key: ${key}\n\n`)],
      ['absolute URI to elsewhere', httpRequest('GET', 'http://169.254.169.254/latest/meta-data', { 'x-api-key': key })],
      ['Expect: 100-continue with no body', httpRequest('POST', '/api/v1/ecf/validate', { 'x-api-key': key, 'content-type': 'application/json', expect: '100-continue', 'content-length': '2' })],
    ];
    for (const [label, bytes] of cases) {
      // The HTTP parser may answer before fastify sees anything; a half-sent body may get no answer at all.
      await check(findings, apiRoute('*', '(http)'), label, bytes, { halfClose: true, noAnswerOk: true });
    }
    expectNoFindings(findings);
  }, TEST_TIMEOUT_MS);

  it('connections that stall mid-request do not stop others being served, and change nothing stored', async () => {
    const key = server.world.keys.admin;
    const before = await server.ask<string>('snapshot', REQUEST_TIMEOUT_MS);
    const body = JSON.stringify(invoice31());
    const stalled: Socket[] = [];
    for (let i = 0; i < STALLED_CONNECTIONS; i++) {
      const half = i % 2 === 0;
      const head = `POST /api/v1/ecf HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nidempotency-key: stall-${i}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
      // Half: the headers and half the body. Otherwise: headers that never end (slowloris).
      stalled.push(await stalledRequest(server.world.port, half ? `${head}\r\n${body.slice(0, body.length >> 1)}` : head));
    }
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await rawRequest(server.world.port, httpRequest('GET', '/api/v1/emission', { 'x-api-key': key }), { ms: REQUEST_TIMEOUT_MS });
        expect(answer.status).toBe(200);
      }
    } finally {
      for (const s of stalled) s.destroy();
    }
    expect(await server.ask<string>('snapshot', REQUEST_TIMEOUT_MS)).toBe(before);
  }, TEST_TIMEOUT_MS);

  it('gives up on a client that stops sending: the server bounds the time to receive a request', () => {
    // Node's own default (300 s) is switched off by fastify unless requestTimeout is set: without it a
    // stalled body holds its connection forever, and enough of them exhaust the server's sockets.
    expect(server.world.requestTimeout, 'server.requestTimeout (0: a stalled request is never given up)').toBeGreaterThan(0);
    expect(server.world.requestTimeout).toBeLessThanOrEqual(MAX_REQUEST_RECEIVE_MS);
    expect(server.world.headersTimeout).toBeGreaterThan(0);
  });
});
