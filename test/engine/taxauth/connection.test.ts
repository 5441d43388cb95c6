import { describe, expect, it, vi } from 'vitest';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { checkConnection } from '../../../src/engine/taxauth/connection.js';
import { TokenCache, type TaxauthLogger } from '../../../src/engine/taxauth/token-cache.js';
import { ManualClock } from '../../../src/engine/clock.js';
import { updateTenant } from '../../../src/engine/tenants/tenants.js';
import { seedTenant } from '../../helpers.js';
import { sandbox, world } from './fixtures.js';

/** Everything written anywhere while `work` runs: the logger given to the check, console, stdout and stderr. */
async function capturing<T>(work: (logger: TaxauthLogger) => Promise<T>): Promise<{ result: T; output: string }> {
  const chunks: string[] = [];
  const entry = (level: string) => (obj: Record<string, unknown>, msg?: string) => void chunks.push(`${level} ${msg ?? ''} ${JSON.stringify(obj)}`);
  const logger: TaxauthLogger = { info: entry('info'), warn: entry('warn') };
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void chunks.push(a.map(String).join(' '))),
    vi.spyOn(console, 'info').mockImplementation((...a: unknown[]) => void chunks.push(a.map(String).join(' '))),
    vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => void chunks.push(a.map(String).join(' '))),
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void chunks.push(a.map(String).join(' '))),
    vi.spyOn(console, 'debug').mockImplementation((...a: unknown[]) => void chunks.push(a.map(String).join(' '))),
  ];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((c: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(String(c));
    return out(c, ...(rest as []));
  }) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(String(c));
    return err(c, ...(rest as []));
  }) as typeof process.stderr.write;
  try {
    const result = await work(logger);
    return { result, output: chunks.join('\n') };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    for (const s of spies) s.mockRestore();
  }
}

describe('checkConnection', () => {
  it('authenticates in the tenant’s default environment and returns when the token expires, never the token', async () => {
    const w = await world();
    const cache = new TokenCache();
    const { result, output } = await capturing((logger) => checkConnection(w.engine, w.tenant.id, undefined, { cache, logger }));
    expect(result).toEqual({
      environment: 'test',
      ok: true,
      authenticated: true,
      elapsedMs: expect.any(Number),
      tokenExpiresAt: '2026-03-10T11:00:00.000-04:00',
      error: null,
      authorityStatus: expect.objectContaining({ configured: false, summary: 'status services not configured' }),
    });
    const tokens = w.control.issuedTokens();
    expect(tokens).toHaveLength(1);
    expect(JSON.stringify(result)).not.toContain(tokens[0]);
    expect(output).toContain('tax authority connection check succeeded');
    expect(output).not.toContain(tokens[0]);
    // The fresh token is kept for later calls.
    expect(await cache.token(w.engine, w.tenant.id, 'test')).toBe(tokens[0]);
    expect(w.control.stats().tokensIssued).toBe(1);
  });

  it('runs the whole flow again even with a valid cached token, and uses the environment asked for', async () => {
    const w = await world();
    const cache = new TokenCache();
    await cache.token(w.engine, w.tenant.id, 'cert');
    const check = await checkConnection(w.engine, w.tenant.id, 'cert', { cache });
    expect(check).toMatchObject({ environment: 'cert', ok: true, authenticated: true });
    expect(w.control.stats().tokensIssued).toBe(2);
    await updateTenant(w.engine, w.tenant.id, { defaultEnvironment: 'production' });
    expect((await checkConnection(w.engine, w.tenant.id, null, { cache })).environment).toBe('production');
    expect(w.control.submissions()).toEqual([]);
  });

  it('says the authority is unreachable, without the token, when the connection fails', async () => {
    const w = await world();
    const cache = new TokenCache();
    await cache.token(w.engine, w.tenant.id, 'test');
    w.control.setUnreachable(true);
    const { result, output } = await capturing((logger) => checkConnection(w.engine, w.tenant.id, 'test', { cache, logger }));
    expect(result).toMatchObject({ environment: 'test', ok: false, authenticated: false, tokenExpiresAt: null, error: { kind: 'network', status: null } });
    expect(result.error!.message).toMatch(/Could not reach the tax authority \(semilla\)/);
    expect(output).toContain('tax authority connection check failed');
    for (const t of w.control.issuedTokens()) {
      expect(output).not.toContain(t);
      expect(JSON.stringify(result)).not.toContain(t);
    }
  });

  it('says it timed out within the configured timeout', async () => {
    const w = await world();
    await setSetting(w.engine, 'taxauth.timeout_ms', 300);
    // A port that accepts and never answers.
    const { createServer } = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    try {
      await setSetting(w.engine, 'taxauth.url.test', `http://127.0.0.1:${port}/testecf`);
      const check = await checkConnection(w.engine, w.tenant.id, 'test', { cache: new TokenCache() });
      expect(check).toMatchObject({ ok: false, authenticated: false, error: { kind: 'timeout', status: null } });
      expect(check.elapsedMs).toBeGreaterThanOrEqual(250);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('tells a refused seed signature (the authority answered) from a tenant without certificate', async () => {
    const w = await world();
    const bare = (await seedTenant(w.engine)).tenant;
    const check = await checkConnection(w.engine, bare.id, 'test', { cache: new TokenCache() });
    expect(check).toMatchObject({ ok: true, authenticated: false, tokenExpiresAt: null, error: { kind: 'certificate', status: null } });
    expect(check.error!.message).toMatch(/no valid, unrevoked certificate/);
    expect(w.control.stats().seedsIssued).toBe(1);
  });

  it('reports the authority’s 400 to the signed seed as an http error: it answered, but no token', async () => {
    const w = await world();
    // An authority whose clock says the certificate has expired refuses the signature.
    const later = await sandbox(new ManualClock('2037-01-01T00:00:00Z'));
    await setSetting(w.engine, 'taxauth.url.test', `${later.url}/testecf`);
    const check = await checkConnection(w.engine, w.tenant.id, 'test', { cache: new TokenCache() });
    expect(check).toMatchObject({
      environment: 'test',
      ok: true,
      authenticated: false,
      tokenExpiresAt: null,
      error: { kind: 'http', status: 400, message: 'Firma del certificado invalida' },
    });
    expect(later.control.stats()).toMatchObject({ seedsIssued: 1, seedRejections: 1, tokensIssued: 0 });
  });

  it('refuses an unknown tenant', async () => {
    const w = await world();
    await expect(checkConnection(w.engine, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ kind: 'not_found' });
  });
});
