import type { Engine } from '../engine-types.js';
import { tenantKey } from '../tenants/lookup.js';

export interface RecentBuyer {
  readonly rnc: string;
  readonly name: string | null;
}

/** How many of the newest e-CF are looked through: the cost stays bounded however many the tenant issued. */
const LOOK_BACK = 500;

/**
 * The buyers of the tenant's newest e-CF, each RNC once (its newest name),
 * newest first, at most `limit`: what a person issuing by hand picks from.
 * Only the newest LOOK_BACK e-CF are read (the list index on tenant and
 * issue instant), so a tenant with millions of e-CF answers as fast as a new one.
 */
export async function recentBuyers(engine: Engine, tenantId: string, limit = 50): Promise<RecentBuyer[]> {
  const rows = await engine.db
    .selectFrom('ecf')
    .select(['buyer_rnc', 'buyer_name'])
    .where('tenant_key', '=', await tenantKey(engine.db, tenantId))
    .orderBy('issued_at', 'desc')
    .limit(LOOK_BACK)
    .execute();
  const seen = new Map<string, RecentBuyer>();
  for (const row of rows) {
    if (!row.buyer_rnc || seen.has(row.buyer_rnc)) continue;
    seen.set(row.buyer_rnc, { rnc: row.buyer_rnc, name: row.buyer_name });
    if (seen.size >= limit) break;
  }
  return [...seen.values()];
}
