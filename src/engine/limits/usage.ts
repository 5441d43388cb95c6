import { Type, type Static } from '@sinclair/typebox';
import { dominicanMonth, dominicanMonthBounds, toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { invalidField } from '../errors.js';
import type { EventType } from '../events/catalogue.js';
import { emit, type EventEnvelope } from '../events/outbox.js';
import { inTransaction, type Db, type Tx } from '../store/database.js';
import { onceInCluster } from '../store/locking.js';
import { requireOrganization } from '../tenants/lookup.js';
import { fanOut } from '../events/fan-out.js';
import { reached } from './monthly-cap.js';
import { greater } from '../store/functions.js';

/**
 * Organization usage per billing period. A billing period is a Dominican
 * calendar month (yyyy-MM). Three dimensions against the plan's limits:
 * production e-CF issued by the organization's tenants (the included quota,
 * which is billed, never enforced), the peak number of tenants and the peak
 * number of members during the period. Each 80 % and 100 % threshold is told
 * once per period; a job closes each period with `billing.period_closed`.
 *
 * Organization events are one event each (tenant_id null in the outbox), with
 * a delivery to every subscribed endpoint of every tenant of the organization:
 * one fact, one event id, however many tenants share a receiver.
 */

export type UsageDimension = 'ecf' | 'tenants' | 'members';

const EVENTS: Record<UsageDimension, { 80: EventType; 100: EventType }> = {
  ecf: { 80: 'usage.threshold_reached', 100: 'usage.limit_reached' },
  tenants: { 80: 'usage.tenant_threshold_reached', 100: 'usage.tenant_limit_reached' },
  members: { 80: 'usage.member_threshold_reached', 100: 'usage.member_limit_reached' },
};

const Dimension = Type.Object({
  used: Type.Integer({ description: 'e-CF issued in the period, or the peak count of tenants or members' }),
  limit: Type.Integer(),
  pct: Type.Number({ description: 'used ÷ limit × 100, two decimals' }),
});

export const UsageView = Type.Object({
  organizationId: Type.String(),
  period: Type.String({ description: 'yyyy-MM, a Dominican calendar month' }),
  periodStart: Type.String({ format: 'date-time' }),
  periodEnd: Type.String({ format: 'date-time' }),
  closed: Type.Boolean(),
  ecf: Dimension,
  tenants: Type.Object({ ...Dimension.properties, current: Type.Integer() }),
  members: Type.Object({ ...Dimension.properties, current: Type.Integer() }),
});
export type UsageView = Static<typeof UsageView>;

const pct = (used: number, limit: number): number => (limit > 0 ? Math.round((used * 10_000) / limit) / 100 : 0);

async function counts(db: Db, organizationId: string, period: string) {
  const tenants = await db.selectFrom('tenants').select('id').where('organization_id', '=', organizationId).orderBy('created_at').orderBy('id').execute();
  const { n: members } = await db
    .selectFrom('organization_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  const ids = tenants.map((t) => t.id);
  const ecf = ids.length
    ? await db
        .selectFrom('ecf_monthly_counts')
        .select((eb) => eb.fn.sum<number | null>('n').as('n'))
        .where('tenant_id', 'in', ids)
        .where('environment', '=', 'production')
        .where('period', '=', period)
        .executeTakeFirstOrThrow()
    : { n: 0 };
  return { tenantIds: ids, tenants: ids.length, members: Number(members), ecf: Number(ecf.n ?? 0) };
}

/** One organization event: recorded once (by its fact key) and delivered to the endpoints of each of its tenants. */
async function emitToOrganization(tx: Tx, now: Date, tenantIds: readonly string[], type: EventType, object: unknown, factKey: string): Promise<EventEnvelope | null> {
  const event = await emit(tx, now, null, type, object, { factKey });
  if (event) for (const id of tenantIds) await fanOut(tx, now, id, event.id, type);
  return event;
}

/**
 * Records the current tenant and member counts as the period's peaks (when
 * higher) and tells each threshold reached for the first time this period.
 * Call in the transaction that changes a count (tenant created or attached,
 * member added, production e-CF issued) and from the usage job.
 */
export async function noteOrganizationUsage(tx: Tx, now: Date, organizationId: string): Promise<EventEnvelope[]> {
  const period = dominicanMonth(now);
  const org = await tx.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst();
  if (!org) return [];
  const c = await counts(tx, organizationId, period);
  await tx
    .insertInto('organization_usage')
    .values({ organization_id: organizationId, period, peak_tenants: c.tenants, peak_members: c.members, closed_at: null })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'period']).doUpdateSet((eb) => ({
        peak_tenants: greater(tx, eb, eb.ref('organization_usage.peak_tenants'), eb.ref('excluded.peak_tenants')),
        peak_members: greater(tx, eb, eb.ref('organization_usage.peak_members'), eb.ref('excluded.peak_members')),
      })),
    )
    .execute();
  const usage = await tx
    .selectFrom('organization_usage')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('period', '=', period)
    .executeTakeFirstOrThrow();
  const dims: [UsageDimension, number, number][] = [
    ['ecf', c.ecf, org.monthly_ecf_quota],
    ['tenants', usage.peak_tenants, org.max_tenants],
    ['members', usage.peak_members, org.max_members],
  ];
  const sent: EventEnvelope[] = [];
  for (const [dimension, used, limit] of dims) {
    for (const threshold of [80, 100] as const) {
      if (!reached(used, limit, threshold)) continue;
      const type = EVENTS[dimension][threshold];
      const object = { organizationId, period, dimension, threshold, limit, used };
      const e = await emitToOrganization(tx, now, c.tenantIds, type, object, `${type}:${organizationId}:${period}`);
      if (e) sent.push(e);
    }
  }
  return sent;
}

async function view(db: Db, organizationId: string, period: string): Promise<UsageView> {
  const org = await requireOrganization(db, organizationId);
  const c = await counts(db, organizationId, period);
  const row = await db.selectFrom('organization_usage').selectAll().where('organization_id', '=', organizationId).where('period', '=', period).executeTakeFirst();
  const { start, end } = dominicanMonthBounds(period);
  const peakTenants = row?.peak_tenants ?? 0;
  const peakMembers = row?.peak_members ?? 0;
  return {
    organizationId,
    period,
    periodStart: toDominicanIso(start),
    periodEnd: toDominicanIso(end),
    closed: !!row?.closed_at,
    ecf: { used: c.ecf, limit: org.monthly_ecf_quota, pct: pct(c.ecf, org.monthly_ecf_quota) },
    tenants: { used: peakTenants, limit: org.max_tenants, pct: pct(peakTenants, org.max_tenants), current: c.tenants },
    members: { used: peakMembers, limit: org.max_members, pct: pct(peakMembers, org.max_members), current: c.members },
  };
}

/**
 * `ecf org usage`: an organization's usage in a billing period (default: the
 * current one). Peaks are those recorded; for the current period they are at
 * least the counts now.
 */
export async function organizationUsage(engine: Engine, organizationId: string, period?: string): Promise<UsageView> {
  const now = engine.clock.now();
  const current = dominicanMonth(now);
  const p = period ?? current;
  if (!/^\d{4}-(?:0[1-9]|1[0-2])$/.test(p)) throw invalidField('period', 'Usage.InvalidPeriod', 'must be a month as yyyy-MM, e.g. 2026-03');
  if (p > current) throw invalidField('period', 'Usage.FuturePeriod', `must not be after the current period ${current}`);
  await requireOrganization(engine.db, organizationId);
  if (p === current) await inTransaction(engine.db, (tx) => noteOrganizationUsage(tx, now, organizationId));
  return view(engine.db, organizationId, p);
}

/**
 * The usage job: closes every period that has ended (`billing.period_closed`
 * with the summary of the three dimensions, once per organization and
 * period), then records the current period's peaks and thresholds for every
 * organization (so a new period starts from the counts it inherits).
 */
export async function evaluateUsage(engine: Engine): Promise<EventEnvelope[]> {
  const now = engine.clock.now();
  const current = dominicanMonth(now);
  const open = await engine.db.selectFrom('organization_usage').select(['organization_id', 'period']).where('closed_at', 'is', null).where('period', '<', current).execute();
  const organizations = await engine.db.selectFrom('organizations').select('id').orderBy('created_at').orderBy('id').execute();
  return inTransaction(engine.db, async (tx) => {
    // One process of the cluster closes periods; the close is keyed and the peaks are upserts, so a later run repeats nothing.
    if (!(await onceInCluster(tx, 'usage'))) return [];
    const sent: EventEnvelope[] = [];
    for (const { organization_id, period } of open) {
      const summary = await view(tx, organization_id, period);
      const { tenantIds } = await counts(tx, organization_id, period);
      const object = { ...summary, closed: true, closedAt: toDominicanIso(now) };
      const e = await emitToOrganization(tx, now, tenantIds, 'billing.period_closed', object, `billing.period_closed:${organization_id}:${period}`);
      await tx.updateTable('organization_usage').set({ closed_at: now.toISOString() }).where('organization_id', '=', organization_id).where('period', '=', period).execute();
      if (e) sent.push(e);
    }
    for (const { id } of organizations) sent.push(...(await noteOrganizationUsage(tx, now, id)));
    return sent;
  });
}
