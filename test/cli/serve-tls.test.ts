import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { BIN, cliFor } from '../cli-runner.js';
import { seedIssuer, tempDir, testDataDir } from '../helpers.js';
import { NO_DRAIN } from '../serve-process.js';

/** A self-signed certificate for 127.0.0.1 and its key, made by openssl. */
function selfSigned(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '30', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** `ecf serve` with the arguments given; resolves with the base URL it prints once it listens. */
async function serve(dataDir: string, args: string[]): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--no-jobs', '--log-level', 'warn', '--data-dir', dataDir, ...NO_DRAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /serving (https?:\/\/[^\s]+)\/api\/v1/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`ecf serve exited with ${code}: ${out}`)));
  });
  return { child, base };
}

describe('ecf serve --tls-cert --tls-key', () => {
  it('serves the whole app over HTTPS (the receiver’s seed route answers) and refuses plain http://', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { tenant } = await seedIssuer(engine);
    await engine.close();
    const tls = selfSigned(tempDir('ecf-tls-'), 'server');
    const dispatcher = new Agent({ connect: { ca: readFileSync(tls.cert) } });

    const { child, base } = await serve(dataDir, ['--tls-cert', tls.cert, '--tls-key', tls.key]);
    try {
      expect(base).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const seed = await request(`${base}/${tenant.id}/FE/Autenticacion/API/Semilla`, { dispatcher });
      expect(seed.statusCode).toBe(200);
      expect(await seed.body.text()).toMatch(/<SemillaModel [^>]*><valor>[^<]+<\/valor><fecha>/);
      const api = await request(`${base}/api/v1/emitter-profile`, { dispatcher });
      expect(api.statusCode).toBe(401);
      await api.body.text();

      // The same port does not speak plain HTTP: the TLS layer drops the connection.
      await expect(request(`${base.replace('https:', 'http:')}/${tenant.id}/fe/autenticacion/api/semilla`)).rejects.toThrow();
    } finally {
      child.kill('SIGTERM');
      await dispatcher.close();
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }, 60_000);

  it('names what is wrong with the files: unreadable, not PEM, a key of another certificate, one flag alone', async () => {
    const dataDir = testDataDir();
    const dir = tempDir('ecf-tls-');
    const a = selfSigned(dir, 'a');
    const b = selfSigned(dir, 'b');
    const { ecf } = cliFor(dataDir);

    const missing = await ecf(['serve', '--port', '0', '--no-jobs', '--tls-cert', join(dir, 'none.crt'), '--tls-key', a.key]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Serve.TlsUnreadable');
    expect(missing.stderr).toContain('none.crt cannot be read (ENOENT)');

    const notPem = await ecf(['serve', '--port', '0', '--no-jobs', '--tls-cert', a.key, '--tls-key', a.key]);
    expect(notPem.code).toBe(2);
    expect(notPem.stderr).toContain('Serve.TlsCertificateInvalid');

    const mismatch = await ecf(['serve', '--port', '0', '--no-jobs', '--tls-cert', a.cert, '--tls-key', b.key]);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toContain('Serve.TlsKeyMismatch');
    expect(mismatch.stderr).toContain('is not the private key of the certificate');

    const alone = await ecf(['serve', '--port', '0', '--no-jobs', '--tls-cert', a.cert]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--tls-key');
  }, 60_000);
});
