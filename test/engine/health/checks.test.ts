import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/engine/clock.js';
import { authorityChecks, certificateChecks, environmentsInUse, sequenceChecks } from '../../../src/engine/health/checks.js';
import { addRange } from '../../../src/engine/sequences/ranges.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { seedIssuer, seedTenant, testEngine } from '../../helpers.js';
import { cliFor } from '../../cli-runner.js';
import { ensureSecretStoreKey } from '../../../src/engine/secrets/key-file.js';

const byCheck = (checks: { check: string; status: string; detail: string }[]) => Object.fromEntries(checks.map((c) => [c.check, c]));

describe('health checks (ecf doctor)', () => {
  it('certificates: signing until when, expiring soon, missing', async () => {
    const engine = await testEngine();
    const issuer = await seedIssuer(engine);
    const bare = await seedTenant(engine);
    let checks = byCheck(await certificateChecks(engine));
    expect(checks[`certificate ${issuer.tenant.rnc}`]).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^signs until \d{4}-\d{2}-\d{2}/) });
    expect(checks[`certificate ${bare.tenant.rnc}`]).toMatchObject({ status: 'warn', detail: expect.stringContaining(`ecf cert import FILE --tenant ${bare.tenant.rnc}`) });
    const [active] = (await engine.db.selectFrom('certificates').select('not_after').where('tenant_id', '=', issuer.tenant.id).execute()).map((r) => r.not_after);
    engine.clock.set(new Date(Date.parse(active!) - 10 * 86_400_000).toISOString());
    checks = byCheck(await certificateChecks(engine));
    expect(checks[`certificate ${issuer.tenant.rnc}`]).toMatchObject({ status: 'warn', detail: expect.stringContaining('expires in 10 days') });
  });

  it('sequences: stock, low, used up, expiring and expired ranges, and none at all', async () => {
    const engine = await testEngine();
    const issuer = await seedIssuer(engine);
    const bare = await seedTenant(engine);
    let checks = byCheck(await sequenceChecks(engine));
    expect(checks[`sequences ${issuer.tenant.rnc}`]).toMatchObject({ status: 'ok' });
    expect(checks[`sequences ${bare.tenant.rnc}`]).toMatchObject({ status: 'warn', detail: expect.stringContaining('no e-NCF ranges') });

    await addRange(engine, { tenantId: bare.tenant.id, environment: 'test', type: 31, rangeFrom: 1, rangeTo: 10, expiresOn: '2026-03-20' });
    await addRange(engine, { tenantId: bare.tenant.id, environment: 'test', type: 33, rangeFrom: 1, rangeTo: 10, expiresOn: '2027-12-31' });
    await engine.db.updateTable('sequence_ranges').set({ next: 11 }).where('tenant_id', '=', bare.tenant.id).where('type', '=', 33).execute();
    await addRange(engine, { tenantId: bare.tenant.id, environment: 'test', type: 34, rangeFrom: 1, rangeTo: 100, expiresOn: null });
    await engine.db.updateTable('sequence_ranges').set({ next: 95 }).where('tenant_id', '=', bare.tenant.id).where('type', '=', 34).execute();
    checks = byCheck(await sequenceChecks(engine));
    const detail = checks[`sequences ${bare.tenant.rnc}`]!.detail;
    expect(checks[`sequences ${bare.tenant.rnc}`]!.status).toBe('warn');
    expect(detail).toContain('test E31 1-10 expires on 2026-03-20');
    expect(detail).toContain('test E33 1-10 is used up');
    expect(detail).toContain('test E34 1-100 has 6 of 100 left');
    engine.clock.set('2026-03-21T14:00:00Z');
    expect((await sequenceChecks(engine)).find((c) => c.check === `sequences ${bare.tenant.rnc}`)!.detail).toContain('test E31 1-10 expired on 2026-03-20');
  });

  it('authority: reachability and the clock per environment in use, against the sandbox over HTTP', async () => {
    const engine = await testEngine();
    await seedIssuer(engine);
    const inStep = await startSandbox({ clock: engine.clock });
    const ahead = new ManualClock(new Date(engine.clock.now().getTime() + 5 * 60_000).toISOString());
    const drifted = await startSandbox({ clock: ahead });
    try {
      expect(await environmentsInUse(engine)).toEqual(['test']);
      await setSetting(engine, 'taxauth.url.test', `${inStep.url}/testecf`);
      let checks = byCheck(await authorityChecks(engine));
      expect(checks['authority test']).toMatchObject({ status: 'ok', detail: expect.stringContaining(`${inStep.url}/testecf answered in`) });
      expect(checks['clock test']).toMatchObject({ status: 'ok' });

      await setSetting(engine, 'taxauth.url.test', `${drifted.url}/testecf`);
      checks = byCheck(await authorityChecks(engine));
      expect(checks['clock test']).toMatchObject({ status: 'warn', detail: expect.stringMatching(/is 300 s behind the authority's/) });

      const closed = drifted.url;
      await drifted.close();
      await setSetting(engine, 'taxauth.url.test', `${closed}/testecf`);
      checks = byCheck(await authorityChecks(engine));
      expect(checks['authority test']).toMatchObject({ status: 'fail', detail: expect.stringContaining('does not answer the seed request') });
      expect(checks['clock test']).toBeUndefined();
    } finally {
      await inStep.close();
    }
  });

  it('ecf doctor prints them with what to fix, and --offline leaves the authority alone', { timeout: 120_000 }, async () => {
    const engine = await testEngine();
    ensureSecretStoreKey(engine.dataDir);
    const { tenant } = await seedIssuer(engine);
    const sandbox = await startSandbox();
    try {
      await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
      await engine.close();
      const { ecf } = cliFor(engine.dataDir);
      const online = await ecf(['doctor', '--json']);
      const checks = byCheck(JSON.parse(online.stdout).checks);
      expect(checks[`certificate ${tenant.rnc}`]!.status).toBe('ok');
      expect(checks[`sequences ${tenant.rnc}`]!.status).toBe('ok');
      expect(checks['authority test']!.status).toBe('ok');
      expect(checks['clock test']!.status).toBe('ok');
      const offline = byCheck(JSON.parse((await ecf(['doctor', '--offline', '--json'])).stdout).checks);
      expect(offline['authority test']).toBeUndefined();
      expect(offline[`certificate ${tenant.rnc}`]!.status).toBe('ok');
    } finally {
      await sandbox.close();
    }
  });
});
