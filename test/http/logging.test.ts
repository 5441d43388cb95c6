import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { serverLoggerOptions } from '../../src/http/logging.js';
import { withRequestIds } from '../../src/http/request-context.js';
import type { EngineLog } from '../../src/engine/log/index.js';
import { invoice31, seedIssuer, testEngine } from '../helpers.js';
import { api } from '../api.js';

/**
 * The server's JSON lines as `ecf serve` writes them (its logger options and
 * its engine log, tagged with request ids), in process: a refused request's
 * "request completed" line says why, and the state changes a request makes
 * carry its request id.
 */
async function loggedApp() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const base = await testEngine();
  const { tenant, keys } = await seedIssuer(base);
  // As serve.ts does it: the engine logs through the app's logger, once the app exists.
  let target: EngineLog | undefined;
  const log: EngineLog = {
    info: (f, m) => target?.info(f, m),
    warn: (f, m) => target?.warn(f, m),
    error: (f, m) => target?.error(f, m),
    debug: (f, m) => target?.debug(f, m),
  };
  const app = await buildApp({ engine: { ...base, log }, logger: await serverLoggerOptions({ level: 'info', format: 'json', destination }) });
  target = withRequestIds(app.log);
  return { app, tenant, keys, lines };
}

const completed = (lines: readonly Record<string, unknown>[], reqId: string) => lines.find((l) => l.reqId === reqId && l.msg === 'request completed') as { res: Record<string, unknown> } | undefined;

describe('server log lines', () => {
  it('a 4xx response line names the problem code, and for invalid fields their paths and rules', async () => {
    const { app, keys, lines } = await loggedApp();
    try {
      const unauthenticated = await api(app).key('not-a-key').get('/api/v1/ecf');
      expect(unauthenticated.statusCode).toBe(401);
      expect(completed(lines, String(unauthenticated.headers['x-request-id']))!.res).toEqual({ statusCode: 401, problem: unauthenticated.json().code });

      const missing = await api(app).get('/api/v1/nowhere');
      expect(completed(lines, String(missing.headers['x-request-id']))!.res).toEqual({ statusCode: 404, problem: 'Http.RouteNotFound' });

      const invalid = await api(app, keys).as('emisor').post('/api/v1/ecf', { ...invoice31(), buyer: { rnc: 'no-es-un-rnc' } }, { headers: { 'idempotency-key': 'log-invalid-1' } });
      expect(invalid.statusCode, invalid.body).toBe(400);
      const body = invalid.json() as { code: string; fieldErrors: { path: string; code: string }[] };
      expect(body.fieldErrors.length, invalid.body).toBeGreaterThan(0);
      expect(completed(lines, String(invalid.headers['x-request-id']))!.res).toEqual({
        statusCode: 400,
        problem: body.code,
        problemFields: body.fieldErrors.slice(0, 10).map((e) => `${e.path} ${e.code}`),
      });
      // The value sent is not logged, only where it was and the rule it broke.
      expect(JSON.stringify(lines)).not.toContain('no-es-un-rnc');

      const ok = await api(app, keys).as('consultor').get('/api/v1/ecf');
      expect(completed(lines, String(ok.headers['x-request-id']))!.res).toEqual({ statusCode: 200 });
    } finally {
      await app.close();
    }
  });

  it('the state change an issuing request makes carries that request\'s reqId', async () => {
    const { app, keys, lines } = await loggedApp();
    try {
      const issued = await api(app, keys).as('emisor').post('/api/v1/ecf', invoice31(), { headers: { 'idempotency-key': 'log-req-1' } });
      expect(issued.statusCode, issued.body).toBeLessThan(300);
      const { id } = issued.json() as { id: string };
      const signed = lines.find((l) => l.stateChange === 'ecf' && l.ecfId === id && l.to === 'signed');
      expect(signed).toMatchObject({ reqId: issued.headers['x-request-id'], level: 'info' });
      // Lines written outside any request carry none.
      const other = await api(app, keys).as('consultor').get(`/api/v1/ecf/${id}`);
      expect(other.headers['x-request-id']).not.toBe(issued.headers['x-request-id']);
      expect(lines.filter((l) => l.stateChange === 'ecf' && l.ecfId === id).map((l) => l.reqId)).toEqual([issued.headers['x-request-id']]);
    } finally {
      await app.close();
    }
  });
});
