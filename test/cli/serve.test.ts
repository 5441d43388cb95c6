import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { seedTenant, testDataDir } from '../helpers.js';
import { startServe } from '../serve-process.js';
import { cliFor } from '../cli-runner.js';
import { startServeCapturing } from '../engine/log/serve-output.js';

describe('ecf serve', () => {
  it('answers GET /api/v1/emitter-profile with 401 without a key and 200 with an admin_tenant key, and stops on SIGTERM', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { tenant, keys } = await seedTenant(engine);
    await engine.close();

    const { child, base, output } = await startServe(dataDir);
    try {
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const anonymous = await fetch(`${base}/api/v1/emitter-profile`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('content-type')).toContain('application/problem+json');
      expect(await anonymous.json()).toMatchObject({ code: 'Auth.MissingKey' });

      const ok = await fetch(`${base}/api/v1/emitter-profile`, { headers: { 'x-api-key': keys.admin_tenant } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ tenantId: tenant.id, address: 'Calle El Conde 12' });

      const openapi = await fetch(`${base}/api/v1/openapi.json`);
      expect(openapi.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    // Tests start serve without issue 32's 5 s drain (test/serve-process.ts): its stop line has none.
    expect(output()).toMatch(/stopping on SIGTERM/);
    expect(output()).not.toMatch(/answering for/);
  });

  it('writes its start line as JSON whatever --log-level, and refuses a port in use with a styled error and exit 6', async () => {
    const dataDir = testDataDir();
    const first = await startServeCapturing(dataDir, ['--log-level', 'warn', '--no-jobs']);
    try {
      const start = first.logLines().find((l) => typeof l.msg === 'string' && l.msg.startsWith('ecf serving '));
      expect(start).toMatchObject({ level: 'info', address: first.base });
      expect(first.stdout().split('\n').filter((l) => l !== '' && !l.startsWith('{'))).toEqual([]);

      const port = new URL(first.base).port;
      const second = await cliFor(dataDir).ecf(['serve', '--port', port, '--no-jobs']);
      expect(second.code).toBe(6);
      expect(second.stderr.trim()).toBe(`Error [Serve.PortInUse]: Port ${port} on 127.0.0.1 is already in use (another ecf serve, or another program): stop it, or pick another port with --port.`);
      expect(second.stdout).toBe('');
    } finally {
      first.child.kill('SIGTERM');
    }
    expect(await first.exited).toBe(0);
    expect(first.logLines().find((l) => String(l.msg).startsWith('stopping on SIGTERM'))).toMatchObject({ drainMs: 0 });
    // Two processes start here, each opening the store (on PostgreSQL, creating its own database first).
  }, 120_000);
});
