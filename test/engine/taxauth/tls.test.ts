import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { TaxauthClient } from '../../../src/engine/taxauth/client.js';
import { buildTaxauthAgent, taxauthAgent } from '../../../src/engine/taxauth/agent.js';
import { tlsChecks } from '../../../src/engine/taxauth/tls-check.js';
import { tempDir, testEngine } from '../../helpers.js';

/** The one TLS 1.2 suite the local "authority" accepts. */
const SERVER_CIPHER = 'ECDHE-RSA-AES128-GCM-SHA256';

let server: Server;
let url: string;
let ca: Buffer;

beforeAll(async () => {
  // A self-signed certificate for 127.0.0.1, trusted by passing it as the client's `ca`.
  const dir = tempDir('ecf-tls-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  ca = readFileSync(join(dir, 'cert.pem'));
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca, maxVersion: 'TLSv1.2', ciphers: SERVER_CIPHER }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>abc</valor><fecha>2026-03-10T10:00:00-04:00</fecha></SemillaModel>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** An engine whose test environment is the local TLS server, and its client as engine.taxauth builds it (plus the test CA). */
async function setup(settings: { minVersion?: 'TLSv1.2' | 'TLSv1.3'; ciphers?: string } = {}) {
  const engine = await testEngine();
  await setSetting(engine, 'taxauth.url.test', `${url}/testecf`);
  await setSetting(engine, 'taxauth.fc_url.test', `${url}/testecf`);
  await setSetting(engine, 'taxauth.timeout_ms', 5_000);
  if (settings.minVersion) await setSetting(engine, 'taxauth.tls_min_version', settings.minVersion);
  if (settings.ciphers) await setSetting(engine, 'taxauth.tls_ciphers', settings.ciphers);
  const s = await engine.taxauth.settings('test');
  const client = new TaxauthClient({ ...s, dispatcher: buildTaxauthAgent(s.tls, { ca }) });
  return { engine, client, tls: s.tls };
}

describe('TLS towards the authority', () => {
  it('with the default settings, connects to a server offering one TLS 1.2 cipher and reports what was negotiated', async () => {
    const { engine, client, tls } = await setup();
    expect(tls).toEqual({ minVersion: 'TLSv1.2', ciphers: null });
    expect(await client.seed()).toContain('<valor>abc</valor>');
    expect(await tlsChecks(engine, 'test', { ca })).toEqual([
      { hosts: ['main', 'fc'], origin: url, ok: true, protocol: 'TLSv1.2', cipher: SERVER_CIPHER, standardCipher: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', detail: null },
    ]);
  });

  it('with taxauth.tls_ciphers that share no cipher with the server, the check and the client fail naming the setting', async () => {
    const { engine, client } = await setup({ ciphers: 'ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES256-GCM-SHA384' });
    const [probe] = await tlsChecks(engine, 'test', { ca });
    expect(probe).toMatchObject({ ok: false, protocol: null, cipher: null });
    expect(probe!.detail).toMatch(/^the host accepts none of the ciphers in taxauth\.tls_ciphers \(ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES256-GCM-SHA384\); unset it/);
    await expect(client.seed()).rejects.toMatchObject({ kind: 'network', message: expect.stringContaining('taxauth.tls_ciphers') });
  });

  it('with taxauth.tls_min_version TLSv1.3 against a TLS 1.2-only server, the check and the client fail naming the setting', async () => {
    const { engine, client } = await setup({ minVersion: 'TLSv1.3' });
    const [probe] = await tlsChecks(engine, 'test', { ca });
    expect(probe).toMatchObject({ ok: false, protocol: null });
    expect(probe!.detail).toMatch(/^the host does not speak TLSv1\.3 or later, the lowest version taxauth\.tls_min_version allows/);
    await expect(client.seed()).rejects.toMatchObject({ kind: 'network', message: expect.stringContaining('taxauth.tls_min_version') });
  });

  it('says so when the cipher list names nothing OpenSSL knows, and when the host is plain HTTP', async () => {
    const { engine } = await setup({ ciphers: 'NO-SUCH-CIPHER' });
    const [probe] = await tlsChecks(engine, 'test', { ca });
    expect(probe!.detail).toMatch(/^taxauth\.tls_ciphers \(NO-SUCH-CIPHER\) names no cipher this machine's OpenSSL knows/);
    await setSetting(engine, 'taxauth.url.test', 'http://127.0.0.1:9/testecf');
    await setSetting(engine, 'taxauth.tls_ciphers', null);
    expect((await tlsChecks(engine, 'test', { ca }))[0]).toMatchObject({ hosts: ['main'], ok: true, protocol: null, detail: 'plain HTTP: no TLS to negotiate' });
  });

  it('a name that does not resolve and a port where nothing listens are said as such, never blamed on the TLS settings', async () => {
    const { engine } = await setup({ ciphers: SERVER_CIPHER });
    // A 64-character label is no DNS name: the resolver refuses it here, without asking any server.
    const unresolvable = `${'x'.repeat(64)}.invalid`;
    await setSetting(engine, 'taxauth.url.test', `https://${unresolvable}/testecf`);
    await setSetting(engine, 'taxauth.fc_url.test', `https://${unresolvable}/testecf`);
    const [dns] = await tlsChecks(engine, 'test', { ca });
    expect(dns).toMatchObject({ ok: false, protocol: null });
    expect(dns!.detail).toMatch(new RegExp(`^${unresolvable} does not resolve: check the host name in the taxauth\\.url settings and this machine's DNS \\(the TLS settings played no part\\) \\(ENOTFOUND: `));
    expect(dns!.detail).not.toMatch(/tls_min_version|tls_ciphers/);

    // A port on loopback that was listening a moment ago and is closed now.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await setSetting(engine, 'taxauth.url.test', `https://127.0.0.1:${port}/testecf`);
    await setSetting(engine, 'taxauth.fc_url.test', `https://127.0.0.1:${port}/testecf`);
    const [refused] = await tlsChecks(engine, 'test', { ca });
    expect(refused!.detail).toMatch(new RegExp(`^nothing accepts connections at 127\\.0\\.0\\.1:${port}: .*\\(no TLS was spoken\\) \\(ECONNREFUSED: `));
  });

  it('builds a new shared Agent when the settings change, and keeps it while they do not', () => {
    const a = taxauthAgent({ minVersion: 'TLSv1.2', ciphers: null });
    expect(taxauthAgent({ minVersion: 'TLSv1.2', ciphers: null })).toBe(a);
    const b = taxauthAgent({ minVersion: 'TLSv1.3', ciphers: null });
    expect(b).not.toBe(a);
    expect(taxauthAgent({ minVersion: 'TLSv1.3', ciphers: null })).toBe(b);
  });
});
