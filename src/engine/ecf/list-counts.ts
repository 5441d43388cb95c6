import { sql } from 'kysely';
import type { Engine } from '../engine.js';
import { amountBand, bandBounds } from './amount-band.js';
import { tenantKey } from '../tenants/lookup.js';

/** The list's filters as the counts read them (amounts in cents). */
export interface CountedFilters {
  readonly type?: number;
  readonly status?: string;
  readonly environment?: string;
  readonly from?: string;
  readonly to?: string;
  readonly retrying?: boolean;
  readonly minCents?: number;
  readonly maxCents?: number;
}

/**
 * The list's exact `totalCount` without reading every match, when the
 * filters allow (migrations 0006 and 0018); undefined when they do not (a
 * search, or an amount bound with From/To or Retrying), and the caller counts
 * the matches.
 *
 * - Type, status and environment: a sum over `ecf_counts`.
 * - With From/To or Retrying: a sum over `ecf_day_counts` (From/To are whole
 *   Dominican days, so a range of days is a range of its rows).
 * - With MinAmount/MaxAmount: a sum over the `ecf_amount_counts` bands wholly
 *   inside the bounds, plus the e-CF of the one or two edge bands counted
 *   from the amount index (which holds type, status and environment).
 */
export async function keptCount(engine: Engine, tenantId: string, f: CountedFilters): Promise<number | undefined> {
  const amounts = f.minCents !== undefined || f.maxCents !== undefined;
  const byDay = f.from !== undefined || f.to !== undefined || f.retrying !== undefined;
  if (amounts && byDay) return undefined;
  if (amounts) return amountCount(engine, tenantId, f);
  // Both tables share the type, status, environment and n columns; only ecf_day_counts has day and retrying.
  let counts = engine.db.selectFrom((byDay ? 'ecf_day_counts' : 'ecf_counts') as 'ecf_counts').where('tenant_id', '=', tenantId);
  if (f.type !== undefined) counts = counts.where('type', '=', f.type);
  if (f.status) counts = counts.where('status', '=', f.status);
  if (f.environment) counts = counts.where('environment', '=', f.environment);
  if (f.from) counts = counts.where(sql.ref('day'), '>=', f.from);
  if (f.to) counts = counts.where(sql.ref('day'), '<=', f.to);
  if (f.retrying !== undefined) counts = counts.where(sql.ref('retrying'), '=', f.retrying ? 1 : 0);
  const row = await counts.select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function amountCount(engine: Engine, tenantId: string, f: CountedFilters): Promise<number> {
  const min = f.minCents ?? Number.MIN_SAFE_INTEGER;
  const max = f.maxCents ?? Number.MAX_SAFE_INTEGER;
  if (min > max) return 0;
  const low = f.minCents === undefined ? undefined : amountBand(f.minCents);
  const high = f.maxCents === undefined ? undefined : amountBand(f.maxCents);
  /** The e-CF with an amount in [from, to], from the amount index alone. */
  const edge = async (from: number, to: number) => {
    let qb = engine.db.selectFrom('ecf').where('tenant_key', '=', await tenantKey(engine.db, tenantId)).where('monto_total_cents', '>=', from).where('monto_total_cents', '<=', to);
    if (f.type !== undefined) qb = qb.where('type', '=', f.type);
    if (f.status) qb = qb.where('status', '=', f.status);
    if (f.environment) qb = qb.where('environment', '=', f.environment);
    return Number((await qb.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  };
  if (low !== undefined && low === high) return edge(min, max);
  let bands = engine.db.selectFrom('ecf_amount_counts').where('tenant_id', '=', tenantId);
  if (low !== undefined) bands = bands.where('band', '>', low);
  if (high !== undefined) bands = bands.where('band', '<', high);
  if (f.type !== undefined) bands = bands.where('type', '=', f.type);
  if (f.status) bands = bands.where('status', '=', f.status);
  if (f.environment) bands = bands.where('environment', '=', f.environment);
  const [inner, below, above] = await Promise.all([
    bands.select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n')).executeTakeFirstOrThrow(),
    low === undefined ? 0 : edge(min, bandBounds(low).high),
    high === undefined ? 0 : edge(bandBounds(high).low, max),
  ]);
  return Number(inner.n) + below + above;
}
