import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signingCredentials } from '../../../src/engine/certificates/certificates.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { signingKey } from '../../../src/engine/signing/xmldsig.js';
import { DEFAULT_URLS } from '../../../src/engine/taxauth/environments.js';
import { TaxauthError } from '../../../src/engine/taxauth/errors.js';
import { TokenCache, signSeed } from '../../../src/engine/taxauth/token-cache.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import { makeIdentity } from '../../certs.js';
import { seedTenant, testEngine } from '../../helpers.js';
import { verifyWithXmlsec1 } from '../signing/verify-tools.js';
import { captureLogger, world } from './fixtures.js';

const MINUTE = 60_000;

describe('environments', () => {
  it('defaults to the authority’s hosts and takes the platform settings over them', async () => {
    const engine = await testEngine();
    expect(await engine.taxauth.settings('test')).toEqual({ ...DEFAULT_URLS.test, timeoutMs: 15_000, tls: { minVersion: 'TLSv1.2', ciphers: null } });
    expect(DEFAULT_URLS).toEqual({
      test: { baseUrl: 'https://ecf.dgii.gov.do/testecf', fcUrl: 'https://fc.dgii.gov.do/testecf' },
      cert: { baseUrl: 'https://ecf.dgii.gov.do/certecf', fcUrl: 'https://fc.dgii.gov.do/certecf' },
      production: { baseUrl: 'https://ecf.dgii.gov.do/ecf', fcUrl: 'https://fc.dgii.gov.do/ecf' },
    });
    await setSetting(engine, 'taxauth.url.cert', 'http://127.0.0.1:9/certecf/');
    await setSetting(engine, 'taxauth.fc_url.cert', 'http://127.0.0.1:9/fc');
    await setSetting(engine, 'taxauth.timeout_ms', 2500);
    expect(await engine.taxauth.settings('cert')).toEqual({ baseUrl: 'http://127.0.0.1:9/certecf', fcUrl: 'http://127.0.0.1:9/fc', timeoutMs: 2500, tls: { minVersion: 'TLSv1.2', ciphers: null } });
    // Other environments keep their defaults; null goes back to the default.
    expect((await engine.taxauth.settings('production')).baseUrl).toBe('https://ecf.dgii.gov.do/ecf');
    await setSetting(engine, 'taxauth.url.cert', null);
    const client = await engine.taxauth.client('cert');
    expect([client.baseUrl, client.fcUrl, client.timeoutMs]).toEqual(['https://ecf.dgii.gov.do/certecf', 'http://127.0.0.1:9/fc', 2500]);
  });

  it('refuses URLs that are not http(s) and timeouts out of range', async () => {
    const engine = await testEngine();
    await expect(setSetting(engine, 'taxauth.url.test', 'ftp://example.do')).rejects.toThrow(/Invalid value/);
    await expect(setSetting(engine, 'taxauth.url.test', 'https://x.do/a?b=c')).rejects.toThrow(/Invalid value/);
    await expect(setSetting(engine, 'taxauth.timeout_ms', 10)).rejects.toThrow(/Invalid value/);
    // Platform-wide only: the authority's address is not a tenant's choice.
    const { tenant } = await seedTenant(engine, { profile: false });
    await expect(setSetting(engine, 'taxauth.url.test', 'https://x.do/a', tenant.id)).rejects.toMatchObject({ code: 'Settings.PlatformOnly' });
  });
});

describe('signing the seed', () => {
  it('rewrites the pretty-printed seed canonically and signs it so that xmlsec1 and the schema accept it', () => {
    const identity = makeIdentity();
    const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));
    const seed =
      '<?xml version="1.0" encoding="utf-8"?>\r\n<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">\r\n' +
      '  <valor>ab+c/d==&amp;x</valor>\r\n  <fecha>2026-03-10T10:00:00.1234567-04:00</fecha>\r\n</SemillaModel>';
    const signed = signSeed(seed, key);
    expect(signed).toMatch(
      /^<\?xml version="1\.0" encoding="utf-8"\?><SemillaModel xmlns:xsd="http:\/\/www\.w3\.org\/2001\/XMLSchema" xmlns:xsi="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance"><valor>ab\+c\/d==&amp;x<\/valor><fecha>2026-03-10T10:00:00\.1234567-04:00<\/fecha><Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">/,
    );
    expect(validateAgainstSchema('semilla', signed).errors).toEqual([]);
    const verdict = verifyWithXmlsec1(signed, identity.certPem);
    expect(verdict.ok, verdict.output).toBe(true);
  });

  it('refuses an answer that is not a seed, as a protocol error', () => {
    const identity = makeIdentity();
    const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));
    let error: unknown;
    try {
      signSeed('<html>mantenimiento</html>', key);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TaxauthError);
    expect(error).toMatchObject({ kind: 'protocol', transient: false });
  });
});

describe('the token cache against the sandbox', () => {
  it('runs seed → signature with the tenant’s certificate → token, and the sandbox verifies it', async () => {
    const w = await world();
    const token = await w.token();
    expect(token).toEqual(w.control.issuedTokens()[0]);
    expect(w.control.stats()).toMatchObject({ seedsIssued: 1, tokensIssued: 1, seedRejections: 0 });
    const info = w.cache.cached(w.engine, w.tenant.id, 'test')!;
    expect(info.issuedAt.toISOString()).toBe('2026-03-10T14:00:00.000Z');
    expect(info.expiresAt.toISOString()).toBe('2026-03-10T15:00:00.000Z');
    expect(info.renewAt.toISOString()).toBe('2026-03-10T14:50:00.000Z');
    expect(info.certificateId).toBe((await signingCredentials(w.engine, w.tenant.id)).certificateId);
    expect(info).not.toHaveProperty('token');
  });

  it('keeps the token until ten minutes before it expires, then renews it', async () => {
    const w = await world();
    const first = await w.token();
    w.clock.advance(49 * MINUTE);
    expect(await w.token()).toBe(first);
    expect(w.control.stats().tokensIssued).toBe(1);
    w.clock.advance(MINUTE); // 50 minutes: 10 before expiry
    const second = await w.token();
    expect(second).not.toBe(first);
    expect(w.control.stats().tokensIssued).toBe(2);
    expect(w.cache.cached(w.engine, w.tenant.id, 'test')!.expiresAt.toISOString()).toBe('2026-03-10T15:50:00.000Z');
  });

  it('keeps one token per tenant and environment, and shares one renewal between concurrent callers', async () => {
    const w = await world();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => w.token()));
    expect(new Set(tokens).size).toBe(1);
    expect(w.control.stats().tokensIssued).toBe(1);
    const cert = await w.cache.token(w.engine, w.tenant.id, 'cert');
    expect(cert).not.toBe(tokens[0]);
    expect(w.control.stats().tokensIssued).toBe(2);
    // Another cache (another process) has its own.
    expect(await new TokenCache().token(w.engine, w.tenant.id, 'test')).not.toBe(tokens[0]);
  });

  it('renews once and retries once on a 401, and gives up on the second 401', async () => {
    const w = await world();
    const first = await w.token();
    expect(w.control.revokeTokens()).toBe(1);
    const seen: string[] = [];
    const result = await w.cache.withToken(w.engine, w.tenant.id, 'test', async (t) => {
      seen.push(t);
      return w.client.trackIds(t, w.tenant.rnc, 'E310000000001');
    });
    expect(result).toEqual([]);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(first);
    expect(seen[1]).not.toBe(first);
    expect(w.control.stats().tokensIssued).toBe(2);

    // Every token refused: one renewal, then the 401 reaches the caller.
    let calls = 0;
    const failing = w.cache.withToken(w.engine, w.tenant.id, 'test', async (t) => {
      calls++;
      w.control.revokeTokens();
      return w.client.trackIds(t, w.tenant.rnc, 'E310000000001');
    });
    await expect(failing).rejects.toMatchObject({ kind: 'http', status: 401, transient: false });
    expect(calls).toBe(2);
    expect(w.control.stats().tokensIssued).toBe(3);
  });

  it('does not renew on errors other than 401', async () => {
    const w = await world();
    await w.token();
    const boom = new TaxauthError('http', 'Service Unavailable', { status: 503 });
    let calls = 0;
    await expect(
      w.cache.withToken(w.engine, w.tenant.id, 'test', async () => {
        calls++;
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(calls).toBe(1);
    expect(w.control.stats().tokensIssued).toBe(1);
  });

  it('asks again when the environment’s URL changes', async () => {
    const w = await world();
    await w.token();
    const other = await (await import('./fixtures.js')).sandbox(w.clock);
    await setSetting(w.engine, 'taxauth.url.test', `${other.url}/testecf`);
    await w.token();
    expect(other.control.stats().tokensIssued).toBe(1);
  });

  it('reports a refused signature as the authority’s 400, and a tenant without certificate before signing anything', async () => {
    const w = await world();
    // Seeds are single-use: replaying a signed seed is refused.
    const seed = await w.client.seed();
    const credentials = await signingCredentials(w.engine, w.tenant.id);
    const signed = signSeed(seed, signingKey(credentials.privateKey, credentials.certificate));
    await w.client.validateSeed(signed);
    const replay = await w.client.validateSeed(signed).catch((e: unknown) => e);
    expect(replay).toMatchObject({ kind: 'http', status: 400, message: 'Firma del certificado invalida', transient: false });
    // A tampered seed.
    const tampered = signSeed(await w.client.seed(), signingKey(credentials.privateKey, credentials.certificate)).replace('<valor>', '<valor>x');
    await expect(w.client.validateSeed(tampered)).rejects.toMatchObject({ status: 400, message: 'Firma del certificado invalida' });

    const bare = (await seedTenant(w.engine)).tenant;
    await expect(w.cache.token(w.engine, bare.id, 'test')).rejects.toMatchObject({ code: 'Certificate.NoneActive' });
  });

  it('logs renewals without the token', async () => {
    const w = await world();
    const { lines, logger } = captureLogger();
    const cache = new TokenCache({ logger });
    const token = await cache.token(w.engine, w.tenant.id, 'test');
    w.control.revokeTokens();
    await cache.withToken(w.engine, w.tenant.id, 'test', (t) => w.client.trackIds(t, w.tenant.rnc, 'E310000000001'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const t of w.control.issuedTokens()) for (const line of lines) expect(line).not.toContain(t);
    expect(lines.join('\n')).not.toContain(token);
  });
});
