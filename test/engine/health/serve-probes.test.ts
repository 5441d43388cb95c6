import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { seedIssuer, testDataDir } from '../../helpers.js';
import { cliFor } from '../../cli-runner.js';
import { startServe } from '../../serve-process.js';

type Check = { name: string; status: string };

/**
 * The probes and metrics of a real `ecf serve` (the built binary, over
 * TCP on 127.0.0.1), and `ecf doctor` on the same data directory agreeing
 * with /readyz on every check they share.
 */
describe('ecf serve: /healthz, /readyz, /metrics; ecf doctor agrees with /readyz', () => {
  it('answers the probes without a key, metrics to a loopback caller, and doctor reports the same statuses', { timeout: 120_000 }, async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { tenant } = await seedIssuer(engine);
    await engine.close();

    // With its jobs: the scheduler's heartbeat is one of the checks (without them, --no-jobs, it is
    // absent and the node ready: test/http/health.test.ts, in-process, to spare a second process).
    const { child, base } = await startServe(dataDir);
    try {
      const live = await fetch(`${base}/healthz`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });

      const ready = await fetch(`${base}/readyz`);
      const body = (await ready.json()) as { status: string; checks: Check[] };
      expect(ready.status, JSON.stringify(body)).toBe(200);
      expect(body.status).toBe('ready');
      const names = body.checks.map((c) => c.name);
      expect(names).toEqual(['store', 'migrations', 'secret-store', 'scheduler', 'taxauth:test', 'taxauth-status']);

      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toContain(`ecf_encf_remaining{tenant_rnc="${tenant.rnc}",environment="test",type="31"} 1000`);
      expect(text).toMatch(/^ecf_http_request_duration_seconds_count\{method="GET",route="\/readyz",status_code="200"\} 1$/m);
      expect(text).toContain('nodejs_eventloop_lag_seconds');

      const doctor = await cliFor(dataDir).ecf(['doctor', '--offline', '--json']);
      expect(doctor.code, doctor.stderr + doctor.stdout).toBe(0);
      const fromDoctor = Object.fromEntries((JSON.parse(doctor.stdout) as { checks: { check: string; status: string }[] }).checks.map((c) => [c.check, c.status]));
      // Every check /readyz runs, doctor runs too, with the same status; the scheduler lives only in the serving process.
      for (const c of body.checks.filter((c) => c.name !== 'scheduler')) expect(fromDoctor[c.name], c.name).toBe(c.status);
      expect(fromDoctor['scheduler']).toBeUndefined();
    } finally {
      child.kill('SIGTERM');
    }
    await once(child, 'exit');
  });
});
