import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { registerScheduler } from '../../src/engine/health/heartbeat.js';
import { runReadiness } from '../../src/engine/health/readiness.js';
import { setContingency } from '../../src/engine/submission/contingency.js';
import { migrateDown, migrateToLatest } from '../../src/engine/store/migrate.js';
import { enqueue } from '../../src/engine/work/queue.js';
import { laneOf, taxauthGroup } from '../../src/engine/work/lanes.js';
import { STORE, seedIssuer, testEngine } from '../helpers.js';
import { api } from '../api.js';

type Body = { status: string; checks: { name: string; status: string }[] };
const statuses = (body: Body) => Object.fromEntries(body.checks.map((c) => [c.name, c.status]));

describe('GET /healthz and /readyz', () => {
  it('answer without a key; /readyz names its checks and their statuses, and nothing more', async () => {
    const engine = await testEngine();
    await seedIssuer(engine);
    const app = await buildApp({ engine });
    try {
      const live = await api(app).get('/healthz');
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual({ status: 'ok' });

      const ready = await api(app).get('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.headers['cache-control']).toBe('no-store');
      const body = ready.json() as Body;
      expect(body.status).toBe('ready');
      // No scheduler runs in this process (as with `ecf serve --no-jobs`): its check is absent, not failing.
      expect(statuses(body)).toEqual({ store: 'ok', migrations: 'ok', 'secret-store': 'ok', 'taxauth:test': 'ok', 'taxauth-status': 'ok' });
      for (const c of body.checks) expect(Object.keys(c).sort()).toEqual(['name', 'status']);
      // Nothing that helps an attacker: no path, no version, no host.
      expect(ready.body).not.toContain(engine.dataDir);
      expect(ready.body).not.toMatch(/sqlite|postgres|\d+\.\d+\.\d+|127\.0\.0\.1|localhost/i);

      // Not in the OpenAPI document: they are the operator's, not the API's.
      const openapi = (await api(app).get('/api/v1/openapi.json')).json() as { paths: Record<string, unknown> };
      expect(Object.keys(openapi.paths)).not.toContain('/readyz');
    } finally {
      await app.close();
    }
  });

  it('the scheduler heartbeat: ready while it beats, 503 naming it once it is stale (time moved on the clock), ready again at the next beat', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const beat = registerScheduler(engine.clock.now(), 31 * 60_000);
    try {
      let res = await api(app).get('/readyz');
      expect(res.statusCode).toBe(200);
      expect(statuses(res.json())).toMatchObject({ scheduler: 'ok' });

      engine.clock.advance(30 * 60_000);
      expect((await api(app).get('/readyz')).statusCode).toBe(200);
      engine.clock.advance(2 * 60_000);
      res = await api(app).get('/readyz');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: 'unready',
        checks: expect.arrayContaining([{ name: 'scheduler', status: 'fail' }, { name: 'store', status: 'ok' }]),
      });

      beat.beat(engine.clock.now());
      expect((await api(app).get('/readyz')).statusCode).toBe(200);
      beat.stop();
      res = await api(app).get('/readyz');
      expect(statuses(res.json()).scheduler).toBeUndefined();
    } finally {
      beat.stop();
      await app.close();
    }
  });

  it('a store migrated behind this build is unready (migrations), and ready again once migrated', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    try {
      await migrateDown(engine.db);
      const res = await api(app).get('/readyz');
      expect(res.statusCode).toBe(503);
      expect(statuses(res.json())).toMatchObject({ store: 'ok', migrations: 'fail' });
      const detail = (await runReadiness(engine)).checks.find((c) => c.name === 'migrations')!.detail;
      expect(detail).toMatch(/1 of \d+ pending .*ecf migrate/);
      await migrateToLatest(engine.db);
      expect((await api(app).get('/readyz')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('contingency and failing calls to the authority warn on taxauth:<environment> without making the node unready', async () => {
    const engine = await testEngine();
    await seedIssuer(engine);
    const app = await buildApp({ engine });
    try {
      await setContingency(engine, true);
      const res = await api(app).get('/readyz');
      expect(res.statusCode).toBe(200);
      expect(statuses(res.json())).toMatchObject({ 'taxauth:test': 'warn' });
      const detail = (await runReadiness(engine)).checks.find((c) => c.name === 'taxauth:test')!.detail;
      expect(detail).toContain('contingency is on (manual)');
      await setContingency(engine, false);
      expect(statuses((await api(app).get('/readyz')).json())).toMatchObject({ 'taxauth:test': 'ok' });

      // A submission to test waiting after a failed call warns on test only; one for cert changes nothing for test.
      const { tenant } = await seedIssuer(engine);
      const failed = await enqueue(engine.db, engine.clock.now(), { kind: 'submit', tenantId: tenant.id, lane: laneOf(taxauthGroup('test'), tenant.id, 'send') });
      await enqueue(engine.db, engine.clock.now(), { kind: 'submit', tenantId: tenant.id, lane: laneOf(taxauthGroup('cert'), tenant.id, 'send') });
      await engine.db.updateTable('work').set({ last_error: 'Could not reach the tax authority (recepcion): ECONNREFUSED' }).execute();
      const warned = await api(app).get('/readyz');
      expect(warned.statusCode).toBe(200);
      expect(statuses(warned.json())).toMatchObject({ 'taxauth:test': 'warn' });
      expect(warned.body).not.toContain('ECONNREFUSED');
      expect((await runReadiness(engine)).checks.find((c) => c.name === 'taxauth:test')!.detail).toMatch(/^1 submission to test waits after a failed call/);
      await engine.db.deleteFrom('work').where('id', '=', failed).execute();
      expect(statuses((await api(app).get('/readyz')).json())).toMatchObject({ 'taxauth:test': 'ok' });
    } finally {
      await app.close();
    }
  });

  it('a store that does not answer: 503 with store failing and the checks that read it named, /healthz still 200', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    try {
      await engine.db.destroy();
      const res = await api(app).get('/readyz');
      expect(res.statusCode).toBe(503);
      const body = res.json() as Body;
      expect(body.status).toBe('unready');
      expect(statuses(body)).toMatchObject({ store: 'fail', migrations: 'fail', 'secret-store': 'fail' });
      // The store's own error (a driver message, a file path) stays out of the body.
      expect(res.body).not.toMatch(/destroyed|closed|driver|pool/i);
      expect(res.body).not.toContain(engine.dataDir);
      expect((await api(app).get('/healthz')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it.runIf(STORE === 'sqlite')('ecf doctor shows the same checks with their detail (in-process: the same function)', async () => {
    const engine = await testEngine();
    const { checks } = await runReadiness(engine);
    expect(checks.find((c) => c.name === 'store')!.detail).toBe('SQLite answers');
    expect(checks.find((c) => c.name === 'secret-store')!.detail).toMatch(/^secrets\.store is /);
  });
});
