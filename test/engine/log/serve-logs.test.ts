import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { invoice31, seedIssuer, STORE, testDataDir, waitUntil } from '../../helpers.js';
import { changesOf } from './capture.js';
import { startServeCapturing } from './serve-output.js';

/**
 * The JSON lines of a real `ecf serve --sandbox`: one e-CF issued over HTTP
 * and accepted by the built-in sandbox, then a clean stop.
 */
describe('ecf serve logs', () => {
  // The store plays no part in how lines are written (state-changes.test.ts runs on both): SQLite only.
  it.skipIf(STORE === 'postgres')('writes JSON lines with the secret headers redacted, one info line per state change of the e-CF, and never a key or a password', async () => {
    const dataDir = testDataDir();
    const setup = await openEngine({ dataDir });
    const { tenant, keys } = await seedIssuer(setup);
    await setSetting(setup, 'duplicates.mode', 'off', tenant.id);
    await setup.close();

    const serve = await startServeCapturing(dataDir, ['--sandbox', '--log-level', 'info']);
    const bearer = 'Bearer not-a-key-but-secret-0f3c9a';
    const cookie = 'session=cookie-secret-77d1';
    let id = '';
    let issuedBy = '';
    try {
      const issued = await fetch(`${serve.base}/api/v1/ecf?api_key=${keys.emisor}`, {
        method: 'POST',
        headers: { 'x-api-key': keys.emisor, authorization: bearer, cookie, 'content-type': 'application/json', 'idempotency-key': 'serve-logs-1' },
        body: JSON.stringify(invoice31()),
      });
      expect(issued.status, await issued.clone().text()).toBeLessThan(300);
      id = ((await issued.json()) as { id: string }).id;
      issuedBy = issued.headers.get('x-request-id')!;
      await waitUntil(async () => {
        const res = await fetch(`${serve.base}/api/v1/ecf/${id}`, { headers: { 'x-api-key': keys.consultor } });
        return ((await res.json()) as { status: string }).status === 'accepted';
      }, 'the sandbox to accept the e-CF', 60_000);
    } finally {
      serve.child.kill('SIGTERM');
    }
    expect(await serve.exited).toBe(0);

    const lines = serve.logLines();
    const all = serve.output();
    // Nothing but JSON on stdout: the start line is a JSON line too, with its fields.
    const written = serve.stdout().split('\n').filter((l) => l !== '');
    expect(written.filter((l) => !l.startsWith('{'))).toEqual([]);
    expect(lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('ecf serving '))).toMatchObject({ level: 'info', address: serve.base, dataDir });
    expect(lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('tax authority: the built-in sandbox at'))).toMatchObject({ sandbox: expect.stringMatching(/^http/) });
    // Every line a shipper reads is JSON with a level word and a time.
    for (const line of lines) expect(line).toMatchObject({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) });

    const posted = lines.find((l) => (l.req as { method?: string } | undefined)?.method === 'POST');
    expect(posted).toBeDefined();
    expect((posted!.req as { headers: Record<string, string> }).headers).toMatchObject({ 'x-api-key': '[redacted]', authorization: '[redacted]', cookie: '[redacted]' });
    expect((posted!.req as { url: string }).url).toBe('/api/v1/ecf?api_key=[redacted]');

    const changes = changesOf(lines.map((fields) => ({ fields })), 'ecf', id);
    expect(changes.map((c) => [c.from, c.to])).toEqual([
      [null, 'signed'],
      ['signed', 'submitted'],
      ['submitted', 'accepted'],
    ]);
    for (const c of changes) expect(c).toMatchObject({ level: 'info', tenantId: tenant.id, encf: expect.stringMatching(/^E31\d{10}$/) });
    // The request that issued it is named on every change of that e-CF, the background sends' too (the work it queued keeps the id).
    expect(changes.map((c) => c.reqId)).toEqual([issuedBy, issuedBy, issuedBy]);
    expect(lines.some((l) => l.msg === 'stopped')).toBe(true);

    for (const key of Object.values(keys)) expect(all).not.toContain(key);
    expect(all).not.toContain('not-a-key-but-secret-0f3c9a');
    expect(all).not.toContain('cookie-secret-77d1');
    expect(all).not.toContain('clave-ñ'); // the certificate's password
  }, 120_000);
});
