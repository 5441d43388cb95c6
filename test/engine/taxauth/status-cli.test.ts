import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { SANDBOX_STATUS_API_KEY } from '../../../src/sandbox/index.js';
import { cliFor } from '../../cli-runner.js';
import { seedIssuer, tempDir, testDataDir } from '../../helpers.js';
import { sandbox } from './fixtures.js';

describe('ecf taxauth status-key | status | check', () => {
  it('stores the key from stdin, shows the status and the next window, never printing the key', async () => {
    const box = await sandbox();
    box.control.status.addWindow({ environment: 'testecf', startsAt: '2030-01-15T13:00:00Z', endsAt: '2030-01-15T16:00:00Z' });
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    await seedIssuer(engine);
    await setSetting(engine, 'taxauth.status_url', box.url);
    await engine.close();
    const { ecf, json } = cliFor(dataDir);

    expect(await json(['taxauth', 'status-key', 'set'], `${SANDBOX_STATUS_API_KEY}\n`)).toMatchObject({ configured: true, hint: '…-key' });
    const shown = await ecf(['taxauth', 'status']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/test\s+Disponible; next maintenance window 2030-01-15T09:00:00.000-04:00 to 2030-01-15T12:00:00.000-04:00; checked/);
    expect(shown.stdout + shown.stderr).not.toContain(SANDBOX_STATUS_API_KEY);
    expect(box.control.status.calls()).toBe(5);

  }, 60_000);

  it('ecf taxauth check prints the protocol and cipher negotiated with the host (trusted through NODE_EXTRA_CA_CERTS)', async () => {
    const dir = tempDir('ecf-tls-cli-');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    // An "authority" that only speaks TLS 1.2 with one cipher and answers nothing useful: the handshake is what is checked.
    const server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')), maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-GCM-SHA384' }, (_q, r) => r.writeHead(503).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    await seedIssuer(engine);
    await setSetting(engine, 'taxauth.url.test', `${url}/testecf`);
    await setSetting(engine, 'taxauth.fc_url.test', `${url}/testecf`);
    await engine.close();

    const check = await cliFor(dataDir, { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') }).ecf(['taxauth', 'check', '--env', 'test']);
    expect(check.code).toBe(6);
    expect(check.stdout).toMatch(new RegExp(`${url.replace(/[.]/g, '\\.')}\\s+main, fc\\s+TLSv1\\.2\\s+ECDHE-RSA-AES256-GCM-SHA384\\s+TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384`));
    expect(check.stdout).toContain('status services not configured');
  }, 60_000);
});
