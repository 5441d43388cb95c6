import { dominicanDate, fromRowInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { contingencyState, type ContingencyState } from '../submission/contingency.js';
import { tenantKey } from '../tenants/lookup.js';

/**
 * What the metrics read from the store, at scrape time: numbers that hold
 * for the whole cluster whichever node is scraped, since every node shares
 * the store. Each query is bounded by something small (tenants, ranges,
 * certificates, webhook endpoints, the counter rows of `ecf_counts`, the
 * pending work), never by the number of e-CF ever issued:
 *
 * - e-CF per environment, type and status: a sum over `ecf_counts`, which
 *   triggers keep per tenant (migration 0006).
 * - the oldest pending e-CF: one index seek per tenant with pending e-CF
 *   (`ecf_list_status`: tenant, status, issued_at).
 * - webhook deliveries: pending and dead rows, grouped on the
 *   `webhook_deliveries_endpoint_due` index; dead rows are removed by the
 *   store-clean job (retention.dead_webhooks_days).
 */
export interface StoreSnapshot {
  /** Summed over tenants. */
  readonly ecf: readonly { environment: string; type: number; status: string; n: number }[];
  /** When the oldest e-CF still waiting for its verdict was issued (UTC ISO); null when none waits. */
  readonly oldestPendingIssuedAt: string | null;
  readonly contingency: ContingencyState;
  /** Per delivery status (pending, dead): rows, endpoints with any, the most at one endpoint. */
  readonly webhookDeliveries: readonly { status: string; deliveries: number; endpoints: number; maxAtOneEndpoint: number }[];
  readonly webhookEndpoints: { readonly enabled: number; readonly disabled: number };
  /** The certificate that signs, per tenant. */
  readonly certificates: readonly { tenantRnc: string; notAfter: string }[];
  /** e-NCF left in active, unexpired ranges, summed per tenant, environment and type. */
  readonly encfRemaining: readonly { tenantRnc: string; environment: string; type: number; remaining: number }[];
}

/** The status of an e-CF signed and still waiting for the authority's verdict. */
export const PENDING_STATUS = 'signed';
const DELIVERY_STATES = ['pending', 'dead'] as const;

export async function storeSnapshot(engine: Engine): Promise<StoreSnapshot> {
  const db = engine.db;
  const now = engine.clock.now();

  const ecf = (
    await db
      .selectFrom('ecf_counts')
      .select(['environment', 'type', 'status', (eb) => eb.fn.sum<number | string>('n').as('n')])
      .groupBy(['environment', 'type', 'status'])
      .execute()
  ).map((r) => ({ environment: r.environment, type: Number(r.type), status: r.status, n: Number(r.n) }));

  let oldestPendingIssuedAt: string | null = null;
  const pendingTenants = await db.selectFrom('ecf_counts').select('tenant_id').where('status', '=', PENDING_STATUS).where('n', '>', 0).distinct().execute();
  for (const { tenant_id } of pendingTenants) {
    const row = await db
      .selectFrom('ecf')
      .select('issued_at')
      .where('tenant_key', '=', await tenantKey(db, tenant_id))
      .where('status', '=', PENDING_STATUS)
      .orderBy('issued_at')
      .limit(1)
      .executeTakeFirst();
    const issuedAt = row && fromRowInstant(row.issued_at);
    if (issuedAt && (oldestPendingIssuedAt === null || issuedAt < oldestPendingIssuedAt)) oldestPendingIssuedAt = issuedAt;
  }

  const contingency = await contingencyState(db);

  const perEndpoint = await db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('status', 'in', [...DELIVERY_STATES])
    .groupBy(['endpoint_id', 'status'])
    .execute();
  const webhookDeliveries = DELIVERY_STATES.map((status) => {
    const counts = perEndpoint.filter((r) => r.status === status).map((r) => Number(r.n));
    return { status, deliveries: counts.reduce((a, b) => a + b, 0), endpoints: counts.length, maxAtOneEndpoint: counts.reduce((a, b) => Math.max(a, b), 0) };
  });
  const endpointRows = await db
    .selectFrom('webhook_endpoints')
    .select(['enabled', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy('enabled')
    .execute();
  const webhookEndpoints = {
    enabled: endpointRows.filter((r) => Number(r.enabled) === 1).reduce((a, r) => a + Number(r.n), 0),
    disabled: endpointRows.filter((r) => Number(r.enabled) !== 1).reduce((a, r) => a + Number(r.n), 0),
  };

  // The one that signs, as certificates.ts decides it: the newest upload, unrevoked and valid now.
  const at = now.toISOString();
  const certRows = await db
    .selectFrom('certificates')
    .innerJoin('tenants', 'tenants.id', 'certificates.tenant_id')
    .select(['tenants.rnc as rnc', 'certificates.not_after as not_after'])
    .where('certificates.revoked_at', 'is', null)
    .where('certificates.not_before', '<=', at)
    .where('certificates.not_after', '>', at)
    .orderBy('tenants.rnc')
    .orderBy('certificates.created_at', 'desc')
    .orderBy('certificates.id', 'desc')
    .execute();
  const certificates: { tenantRnc: string; notAfter: string }[] = [];
  for (const r of certRows) if (certificates.at(-1)?.tenantRnc !== r.rnc) certificates.push({ tenantRnc: r.rnc, notAfter: r.not_after });

  const today = dominicanDate(now);
  const rangeRows = await db
    .selectFrom('sequence_ranges')
    .innerJoin('tenants', 'tenants.id', 'sequence_ranges.tenant_id')
    .select(['tenants.rnc as rnc', 'sequence_ranges.environment as environment', 'sequence_ranges.type as type', 'range_to', 'next', 'annulled_ahead', 'expires_on'])
    .where('sequence_ranges.active', '=', 1)
    .execute();
  const remaining = new Map<string, { tenantRnc: string; environment: string; type: number; remaining: number }>();
  for (const r of rangeRows) {
    const key = `${r.rnc}|${r.environment}|${r.type}`;
    const entry = remaining.get(key) ?? { tenantRnc: r.rnc, environment: r.environment, type: Number(r.type), remaining: 0 };
    // An expired range's numbers can no longer be used: the series shows 0 rather than disappearing.
    if (!(r.expires_on && r.expires_on < today)) entry.remaining += Math.max(0, r.range_to - r.next + 1 - r.annulled_ahead);
    remaining.set(key, entry);
  }

  return {
    ecf,
    oldestPendingIssuedAt,
    contingency,
    webhookDeliveries,
    webhookEndpoints,
    certificates,
    encfRemaining: [...remaining.values()],
  };
}
