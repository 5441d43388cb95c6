import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { EXPORT_KIND, verifyExport } from '../../../src/engine/export/index.js';
import { cleanStore } from '../../../src/engine/retention/clean.js';
import { WORK_HANDLERS } from '../../../src/engine/work-handlers.js';
import { runDueWork } from '../../../src/engine/work/run.js';
import { buildApp } from '../../../src/http/app.js';
import { invoice31, seedIssuer, seedTenant, tempDir, testEngine } from '../../helpers.js';

/** Only the export's work: the e-CF's own sending would look for the authority, which this test does not run. */
const runExports = (engine: Parameters<typeof runDueWork>[0]) => runDueWork(engine, { owner: 'test', handlers: { [EXPORT_KIND]: WORK_HANDLERS[EXPORT_KIND]! } });

describe('POST /api/v1/exports, its status and its file', () => {
  it('202 then a work item makes it; the file once ready (409 before); bad input 400 by field, stores nothing; another tenant 404; retention removes it', async () => {
    const engine = await testEngine();
    const { tenant, keys } = await seedIssuer(engine);
    await issueEcf(engine, tenant.id, { idempotencyKey: 'a', payload: invoice31() });
    const app = await buildApp({ engine });
    const call = (method: 'GET' | 'POST', url: string, key: string, payload?: unknown) =>
      app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload !== undefined && { payload: payload as object }) });

    for (const [body, field] of [[{ month: '2026-3' }, 'month'], [{ from: '2026-03-01' }, 'to'], [{ from: '2026-03-02', to: '2026-03-01' }, 'to'], [{ month: '2026-03', kind: 'x' }, 'kind'], [{ month: '2026-03', environment: 'prod' }, 'environment']] as const) {
      const bad = await call('POST', '/api/v1/exports', keys.admin_tenant, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.headers['content-type']).toContain('application/problem+json');
      expect(bad.body).toContain(field);
    }
    expect((await call('POST', '/api/v1/exports', keys.emisor, { month: '2026-03' })).statusCode).toBe(403);
    expect(await engine.db.selectFrom('exports').selectAll().execute()).toEqual([]);

    const asked = await call('POST', '/api/v1/exports', keys.admin_tenant, { month: '2026-03' });
    expect(asked.statusCode).toBe(202);
    const job = asked.json();
    expect(job).toMatchObject({ status: 'pending', environment: 'test', from: '2026-03-01', to: '2026-03-31', links: { self: `/api/v1/exports/${job.id}`, file: `/api/v1/exports/${job.id}/file` } });
    const early = await call('GET', job.links.file, keys.admin_tenant);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 'Export.NotReady' });

    // Another tenant sees nothing of it.
    const other = await seedTenant(engine);
    expect((await call('GET', job.links.self, other.keys.admin_tenant)).statusCode).toBe(404);
    expect((await call('GET', job.links.file, other.keys.admin_tenant)).statusCode).toBe(404);

    expect(await runExports(engine)).toHaveLength(1);
    const ready = (await call('GET', job.links.self, keys.admin_tenant)).json();
    expect(ready).toMatchObject({ status: 'ready', reason: null });
    const file = await call('GET', job.links.file, keys.admin_tenant);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/zip');
    expect(file.rawPayload.length).toBe(ready.bytes);
    const saved = join(tempDir('ecf-export-api-'), 'got.zip');
    writeFileSync(saved, file.rawPayload);
    expect(await verifyExport(saved)).toMatchObject({ ok: true, documents: 1, ledgerRows: 1 });

    // A tenant without a certificate: the export fails, with the reason.
    const failedJob = (await call('POST', '/api/v1/exports', other.keys.admin_tenant, { from: '2026-03-01', to: '2026-03-10' })).json();
    await runExports(engine);
    expect((await call('GET', failedJob.links.self, other.keys.admin_tenant)).json()).toMatchObject({ status: 'failed', reason: expect.stringContaining('Export.NoActiveCertificate') });
    expect((await call('GET', failedJob.links.file, other.keys.admin_tenant)).statusCode).toBe(409);

    // Kept exports.keep_days (30) after it finished, then the store-clean job removes row and file.
    engine.clock.advance(29 * 86_400_000);
    await cleanStore(engine, { pauseMs: 0 });
    expect((await call('GET', job.links.file, keys.admin_tenant)).statusCode).toBe(200);
    engine.clock.advance(2 * 86_400_000);
    await cleanStore(engine, { pauseMs: 0 });
    expect((await call('GET', job.links.self, keys.admin_tenant)).statusCode).toBe(404);
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(engine.dataDir, 'exports', `${job.id}.zip`))).toBe(false);
    await app.close();
  }, 60_000);
});
