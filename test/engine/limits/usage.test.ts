import { describe, expect, it } from 'vitest';
import { addMember } from '../../../src/engine/tenants/organizations.js';
import { evaluateUsage, organizationUsage } from '../../../src/engine/limits/usage.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { seedIssuer, seedOrganization, seedTenant, testEngine } from '../../helpers.js';
import { eventsOf, issue, lastSeq, readyForProduction } from './fixtures.js';

const summary = (events: Awaited<ReturnType<typeof eventsOf>>) => events.map((e) => [e.type, e.object.dimension, e.object.used, e.object.limit]);

describe('organization usage per billing period', () => {
  it('tells the tenant and member thresholds at 80 % and 100 % once per period, to every tenant of the organization', async () => {
    const engine = await testEngine();
    await setSetting(engine, 'webhooks.development_mode', true);
    await setSetting(engine, 'webhooks.allowed_private_cidrs', ['127.0.0.0/8']);
    const { organization } = await seedOrganization(engine, 'office', { maxTenants: 5, maxMembers: 5, monthlyEcfQuota: 100 });
    const first = await seedTenant(engine, { organizationId: organization.id });
    await createWebhook(engine, first.tenant.id, { url: 'http://127.0.0.1:9/hook', events: ['usage.*'] });
    for (let i = 0; i < 3; i++) await seedTenant(engine, { organizationId: organization.id });
    expect(summary(await eventsOf(engine, 'usage.'))).toEqual([['usage.tenant_threshold_reached', 'tenants', 4, 5]]);
    await seedTenant(engine, { organizationId: organization.id });
    for (let i = 0; i < 3; i++) await addMember(engine, organization.id, { name: `Miembro ${i}`, role: 'member' });
    await addMember(engine, organization.id, { name: 'Último', role: 'member' });
    const events = await eventsOf(engine, 'usage.');
    expect(summary(events)).toEqual([
      ['usage.tenant_threshold_reached', 'tenants', 4, 5],
      ['usage.tenant_limit_reached', 'tenants', 5, 5],
      ['usage.member_threshold_reached', 'members', 4, 5],
      ['usage.member_limit_reached', 'members', 5, 5],
    ]);
    expect(events[1]!.object).toEqual({ organizationId: organization.id, period: '2026-03', dimension: 'tenants', threshold: 100, limit: 5, used: 5 });
    // One event per fact, delivered to the subscribed endpoint of a tenant of the organization.
    const deliveries = await engine.db.selectFrom('webhook_deliveries').select('event_type').where('tenant_id', '=', first.tenant.id).execute();
    expect(deliveries.map((d) => d.event_type)).toEqual(events.map((e) => e.type));
    // The job in the same period tells nothing again.
    expect(await evaluateUsage(engine)).toEqual([]);
  });

  it('counts production e-CF of the period against the included quota (told, never enforced) and closes the period', async () => {
    const engine = await testEngine();
    const { organization } = await seedOrganization(engine, 'office', { maxTenants: 10, maxMembers: 10, monthlyEcfQuota: 5 });
    const a = await seedIssuer(engine, { organizationId: organization.id });
    const b = await seedIssuer(engine, { organizationId: organization.id });
    for (const t of [a, b]) await readyForProduction(engine, t.tenant.id);
    await issue(engine, a.tenant.id, 'test'); // not billed
    for (let i = 0; i < 3; i++) await issue(engine, a.tenant.id, 'production');
    expect(await eventsOf(engine, 'usage.')).toEqual([]);
    await issue(engine, b.tenant.id, 'production');
    await issue(engine, b.tenant.id, 'production');
    await issue(engine, b.tenant.id, 'production'); // past the quota: still issued
    expect(summary(await eventsOf(engine, 'usage.'))).toEqual([
      ['usage.threshold_reached', 'ecf', 4, 5],
      ['usage.limit_reached', 'ecf', 5, 5],
    ]);
    expect(await organizationUsage(engine, organization.id)).toMatchObject({
      period: '2026-03', closed: false, ecf: { used: 6, limit: 5, pct: 120 }, tenants: { used: 2, limit: 10, current: 2 }, members: { used: 1, limit: 10, current: 1 },
    });

    // Still March in Dominican time: nothing closes.
    engine.clock.set('2026-04-01T03:59:00.000Z');
    expect(await eventsOf(engine, 'billing.', await lastSeq(engine))).toEqual([]);
    expect((await evaluateUsage(engine)).map((e) => e.type)).toEqual([]);
    engine.clock.set('2026-04-01T04:10:00.000Z');
    const seq = await lastSeq(engine);
    expect((await evaluateUsage(engine)).map((e) => e.type)).toEqual(['billing.period_closed']);
    expect(await eventsOf(engine, 'billing.', seq)).toEqual([
      {
        type: 'billing.period_closed',
        tenantId: null,
        object: {
          organizationId: organization.id,
          period: '2026-03',
          periodStart: '2026-03-01T00:00:00.000-04:00',
          periodEnd: '2026-04-01T00:00:00.000-04:00',
          closed: true,
          closedAt: '2026-04-01T00:10:00.000-04:00',
          ecf: { used: 6, limit: 5, pct: 120 },
          tenants: { used: 2, limit: 10, pct: 20, current: 2 },
          members: { used: 1, limit: 10, pct: 10, current: 1 },
        },
      },
    ]);
    expect(await evaluateUsage(engine)).toEqual([]);
    expect(await organizationUsage(engine, organization.id, '2026-03')).toMatchObject({ closed: true });
    expect(await organizationUsage(engine, organization.id)).toMatchObject({ period: '2026-04', ecf: { used: 0 }, tenants: { used: 2 } });
    // The new period's quota starts from zero and is told again.
    for (let i = 0; i < 4; i++) await issue(engine, a.tenant.id, 'production');
    expect(summary(await eventsOf(engine, 'usage.', seq))).toEqual([['usage.threshold_reached', 'ecf', 4, 5]]);
    expect((await eventsOf(engine, 'usage.', seq))[0]!.object.period).toBe('2026-04');
  });

  it('a new period inherits the tenant peak, so a full organization is told again once', async () => {
    const engine = await testEngine();
    const { organization } = await seedOrganization(engine, 'solo'); // 1 tenant, 2 members
    await seedTenant(engine, { organizationId: organization.id });
    expect(summary(await eventsOf(engine, 'usage.'))).toEqual([
      ['usage.tenant_threshold_reached', 'tenants', 1, 1],
      ['usage.tenant_limit_reached', 'tenants', 1, 1],
    ]);
    engine.clock.set('2026-04-15T12:00:00.000Z');
    const seq = await lastSeq(engine);
    expect((await evaluateUsage(engine)).map((e) => e.type)).toEqual(['billing.period_closed', 'usage.tenant_threshold_reached', 'usage.tenant_limit_reached']);
    expect(await evaluateUsage(engine)).toEqual([]);
    expect((await eventsOf(engine, 'usage.', seq)).map((e) => e.object.period)).toEqual(['2026-04', '2026-04']);
  });

  it('refuses a malformed or future period', async () => {
    const engine = await testEngine();
    const { organization } = await seedOrganization(engine);
    await expect(organizationUsage(engine, organization.id, '2026-3')).rejects.toMatchObject({ kind: 'validation' });
    await expect(organizationUsage(engine, organization.id, '2026-04')).rejects.toMatchObject({ kind: 'validation' });
  });
});
