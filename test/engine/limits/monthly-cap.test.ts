import { describe, expect, it } from 'vitest';
import { setSetting, unsetSetting } from '../../../src/engine/settings/settings.js';
import { seedIssuer, testEngine } from '../../helpers.js';
import { eventsOf, issue, readyForProduction } from './fixtures.js';

async function setup(cap: number | null) {
  const engine = await testEngine(); // 2026-03-10 10:00 Dominican time
  const { tenant } = await seedIssuer(engine);
  await readyForProduction(engine, tenant.id);
  if (cap !== null) await setSetting(engine, 'limits.monthly_ecf_cap', cap, tenant.id);
  return { engine, tenantId: tenant.id };
}

describe('monthly emission cap (production, per tenant, Dominican months)', () => {
  it('warns at 80 %, tells 100 % once, then refuses with 409 Ecf.MonthlyLimitReached until the next Dominican month', async () => {
    const { engine, tenantId } = await setup(5);
    for (let i = 0; i < 3; i++) await issue(engine, tenantId, 'production');
    expect(await eventsOf(engine, 'tenant.monthly')).toEqual([]);
    await issue(engine, tenantId, 'production');
    expect(await eventsOf(engine, 'tenant.monthly')).toEqual([
      { type: 'tenant.monthly_limit_warning', tenantId, object: { tenantId, period: '2026-03', limit: 5, used: 4 } },
    ]);
    await issue(engine, tenantId, 'production');
    await expect(issue(engine, tenantId, 'production')).rejects.toMatchObject({ kind: 'conflict', code: 'Ecf.MonthlyLimitReached' });
    await expect(issue(engine, tenantId, 'production')).rejects.toMatchObject({ code: 'Ecf.MonthlyLimitReached' });
    // Other environments are not capped.
    expect((await issue(engine, tenantId, 'test')).created).toBe(true);
    expect((await eventsOf(engine, 'tenant.monthly')).map((e) => [e.type, e.object.used])).toEqual([
      ['tenant.monthly_limit_warning', 4],
      ['tenant.monthly_limit_reached', 5],
    ]);

    // 2026-04-01 03:59 UTC is still March 31 in the Dominican Republic.
    engine.clock.set('2026-04-01T03:59:59.999Z');
    await expect(issue(engine, tenantId, 'production')).rejects.toMatchObject({ code: 'Ecf.MonthlyLimitReached' });
    engine.clock.set('2026-04-01T04:00:00.000Z');
    for (let i = 0; i < 4; i++) await issue(engine, tenantId, 'production');
    expect((await eventsOf(engine, 'tenant.monthly')).slice(2)).toEqual([
      { type: 'tenant.monthly_limit_warning', tenantId, object: { tenantId, period: '2026-04', limit: 5, used: 4 } },
    ]);
  });

  it('tells each threshold once per month even when the cap is raised and reached again', async () => {
    const { engine, tenantId } = await setup(2);
    await issue(engine, tenantId, 'production');
    await issue(engine, tenantId, 'production');
    expect((await eventsOf(engine, 'tenant.monthly')).map((e) => [e.type, e.object.used, e.object.limit])).toEqual([
      ['tenant.monthly_limit_warning', 2, 2],
      ['tenant.monthly_limit_reached', 2, 2],
    ]);
    await setSetting(engine, 'limits.monthly_ecf_cap', 3, tenantId);
    await issue(engine, tenantId, 'production');
    await expect(issue(engine, tenantId, 'production')).rejects.toMatchObject({ code: 'Ecf.MonthlyLimitReached' });
    expect(await eventsOf(engine, 'tenant.monthly')).toHaveLength(2);
    await unsetSetting(engine, 'limits.monthly_ecf_cap', tenantId);
    expect((await issue(engine, tenantId, 'production')).created).toBe(true);
  });

  it('without a cap (the default) nothing is refused or told; the platform value applies to every tenant', async () => {
    const { engine, tenantId } = await setup(null);
    for (let i = 0; i < 3; i++) await issue(engine, tenantId, 'production');
    expect(await eventsOf(engine, 'tenant.monthly')).toEqual([]);
    await setSetting(engine, 'limits.monthly_ecf_cap', 3);
    await expect(issue(engine, tenantId, 'production')).rejects.toMatchObject({ code: 'Ecf.MonthlyLimitReached' });
    expect(await eventsOf(engine, 'tenant.monthly')).toEqual([]); // the thresholds are told by the e-CF that reaches them
  });

  it('the operator sets it per tenant; it is not a platform-only setting and rejects nonsense', async () => {
    const { engine, tenantId } = await setup(null);
    await expect(setSetting(engine, 'limits.monthly_ecf_cap', 0, tenantId)).rejects.toMatchObject({ kind: 'validation' });
    await expect(setSetting(engine, 'limits.monthly_ecf_cap', 2.5, tenantId)).rejects.toMatchObject({ kind: 'validation' });
    expect((await setSetting(engine, 'limits.monthly_ecf_cap', 1000, tenantId)).source).toBe('tenant');
  });
});
