import { sql, type SelectQueryBuilder } from 'kysely';
import { dominicanDayBounds, toRowInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import type { Database } from '../store/schema.js';
import { amountBand, bandBounds, type BandLead } from './amount-band.js';
import { tenantKey } from '../tenants/lookup.js';
import { dialectOf } from '../store/dialect.js';
import { daysByMonths } from './list-counts-postgres.js';

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
 * Issued within the Dominican days `from` to `to` (inclusive, either open):
 * the one place a list compares issue instants, so a change of how instants
 * are stored changes this function only.
 */
export function issuedWithin<Q extends SelectQueryBuilder<Database, 'ecf', any>>(qb: Q, from: string | undefined, to: string | undefined, offIndex = false): Q {
  // `+column` keeps a comparison off its index, so the planner walks the index of the sort instead.
  const issued = offIndex ? sql<number>`+issued_at` : sql.ref<number>('issued_at');
  if (from) qb = qb.where(issued, '>=', toRowInstant(dominicanDayBounds(from).start)) as Q;
  if (to) qb = qb.where(issued, '<', toRowInstant(dominicanDayBounds(to).end)) as Q;
  return qb;
}

/**
 * The list's exact `totalCount` without reading every match, when the
 * filters allow (migrations 0006, 0018 and 0022); undefined when they do not
 * (a search, an amount bound with Retrying, or an amount bound with From/To
 * and Type, Status or Environment), and the caller counts the matches.
 *
 * - Type, status and environment: a sum over `ecf_counts`.
 * - With From/To: a sum over `ecf_day_counts` (From/To are whole Dominican
 *   days, so a range of days is a range of its rows); with Retrying alone, over
 *   `ecf_retry_counts`.
 * - With MinAmount/MaxAmount alone: a sum over the `ecf_fine_amount_counts`
 *   bands (0025, a hundredth of a decade) wholly inside the bounds, plus the
 *   e-CF of the one or two edge bands counted from the amount index. With
 *   Type, Status or Environment too, the same over the coarser bands of
 *   `ecf_amount_counts`, which hold those (as does the amount index).
 * - With MinAmount/MaxAmount and From/To: the same over `ecf_day_amount_counts`
 *   (per day and band), the edge bands counted from the amount index, which
 *   holds the issue instant (0022).
 */
export async function keptCount(engine: Engine, tenantId: string, f: CountedFilters): Promise<number | undefined> {
  const amounts = f.minCents !== undefined || f.maxCents !== undefined;
  const byDay = f.from !== undefined || f.to !== undefined || f.retrying !== undefined;
  if (amounts && byDay) {
    const dims = f.type !== undefined || f.status !== undefined || f.environment !== undefined;
    return f.retrying === undefined && !dims ? amountCount(engine, tenantId, f, true) : undefined;
  }
  if (amounts) return amountCount(engine, tenantId, f, false);
  // PostgreSQL: whole months from the monthly counts (list-counts-postgres.ts).
  if (dialectOf(engine.db) === 'postgres' && (f.from || f.to) && f.type === undefined && !f.status && f.retrying === undefined) {
    const n = await daysByMonths(engine, tenantId, f);
    if (n !== undefined) return n;
  }
  // The tables share the type, status, environment and n columns; ecf_day_counts has day and retrying,
  // ecf_retry_counts retrying (0022), so Retrying alone sums a few dozen rows, not a year of days.
  const days = f.from !== undefined || f.to !== undefined;
  const table = days ? 'ecf_day_counts' : f.retrying !== undefined ? 'ecf_retry_counts' : 'ecf_counts';
  let counts = engine.db.selectFrom(table as 'ecf_counts').where('tenant_id', '=', tenantId);
  if (f.type !== undefined) counts = counts.where('type', '=', f.type);
  if (f.status) counts = counts.where('status', '=', f.status);
  if (f.environment) counts = counts.where('environment', '=', f.environment);
  if (f.from) counts = counts.where(sql.ref('day'), '>=', f.from);
  if (f.to) counts = counts.where(sql.ref('day'), '<=', f.to);
  if (f.retrying !== undefined) counts = counts.where(sql.ref('retrying'), '=', f.retrying ? 1 : 0);
  const row = await counts.select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Where the row at `offset` of the list sorted by issue instant falls: its
 * Dominican day, and how many rows the days before it (in `order`) hold, from
 * the kept day counts. A deep page then starts at that day and skips only
 * inside it, instead of skipping `offset` rows one by one; Page, PageSize and
 * Skip keep their meaning. `past`: the offset is past the last row, so the
 * page is empty. Undefined when the counts cannot say (an amount bound).
 */
export async function dayOfRow(engine: Engine, tenantId: string, f: CountedFilters, order: 'asc' | 'desc', offset: number): Promise<{ day: string; before: number } | 'past' | undefined> {
  if (f.minCents !== undefined || f.maxCents !== undefined) return undefined;
  let counts = engine.db.selectFrom('ecf_day_counts').where('tenant_id', '=', tenantId);
  if (f.type !== undefined) counts = counts.where('type', '=', f.type);
  if (f.status) counts = counts.where('status', '=', f.status);
  if (f.environment) counts = counts.where('environment', '=', f.environment);
  if (f.from) counts = counts.where('day', '>=', f.from);
  if (f.to) counts = counts.where('day', '<=', f.to);
  if (f.retrying !== undefined) counts = counts.where('retrying', '=', f.retrying ? 1 : 0);
  const days = await counts.select(['day', (eb) => eb.fn.sum<number>('n').as('n')]).groupBy('day').orderBy('day', order).execute();
  let before = 0;
  for (const d of days) {
    const n = Number(d.n);
    if (before + n > offset) return { day: d.day, before };
    before += n;
  }
  return 'past';
}

async function amountCount(engine: Engine, tenantId: string, f: CountedFilters, byDay: boolean): Promise<number> {
  const min = f.minCents ?? Number.MIN_SAFE_INTEGER;
  const max = f.maxCents ?? Number.MAX_SAFE_INTEGER;
  if (min > max) return 0;
  const tenant = await tenantKey(engine.db, tenantId);
  const dims = f.type !== undefined || f.status !== undefined || f.environment !== undefined;
  // The fine bands (0025) have no day, type, status or environment: with those, the coarse bands.
  const lead: BandLead = byDay || dims ? 2 : 3;
  const low = f.minCents === undefined ? undefined : amountBand(f.minCents, lead);
  const high = f.maxCents === undefined ? undefined : amountBand(f.maxCents, lead);
  /** The e-CF with an amount in [from, to], from the amount index alone. */
  const edge = async (from: number, to: number) => {
    let qb = engine.db.selectFrom('ecf').where('tenant_key', '=', tenant).where('monto_total_cents', '>=', from).where('monto_total_cents', '<=', to);
    if (byDay) qb = issuedWithin(qb, f.from, f.to);
    if (f.type !== undefined) qb = qb.where('type', '=', f.type);
    if (f.status) qb = qb.where('status', '=', f.status);
    if (f.environment) qb = qb.where('environment', '=', f.environment);
    return Number((await qb.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  };
  /** The kept count of the bands `range` (above `gt`, below `lt`, or just `eq`), with the list's other filters. */
  const kept = async (range: { gt?: number; lt?: number; eq?: number }): Promise<number> => {
    const within = <Q extends SelectQueryBuilder<any, any, any>>(qb: Q): Q => {
      if (range.gt !== undefined) qb = qb.where('band', '>', range.gt) as Q;
      if (range.lt !== undefined) qb = qb.where('band', '<', range.lt) as Q;
      if (range.eq !== undefined) qb = qb.where('band', '=', range.eq) as Q;
      return qb;
    };
    if (lead === 3) {
      const bands = within(engine.db.selectFrom('ecf_fine_amount_counts').where('tenant_key', '=', tenant));
      return Number((await bands.select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n')).executeTakeFirstOrThrow()).n);
    }
    // Both tables share tenant_id, band and n; only ecf_day_amount_counts has day, only ecf_amount_counts the rest.
    let bands = within(engine.db.selectFrom((byDay ? 'ecf_day_amount_counts' : 'ecf_amount_counts') as 'ecf_amount_counts').where('tenant_id', '=', tenantId));
    if (f.from) bands = bands.where(sql.ref('day'), '>=', f.from);
    if (f.to) bands = bands.where(sql.ref('day'), '<=', f.to);
    if (f.type !== undefined) bands = bands.where('type', '=', f.type);
    if (f.status) bands = bands.where('status', '=', f.status);
    if (f.environment) bands = bands.where('environment', '=', f.environment);
    return Number((await bands.select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n')).executeTakeFirstOrThrow()).n);
  };
  /**
   * The e-CF with an amount in [from, to] inside `band`: counted from the index when that is at most
   * half the band's amounts, else as the band's kept count less the rest of the band, counted so.
   */
  const inBand = async (band: number, from: number, to: number): Promise<number> => {
    const { low: bandLow, high: bandHigh } = bandBounds(band, lead);
    if (to - from <= (bandHigh - bandLow) / 2) return edge(from, to);
    const [all, under, over] = await Promise.all([kept({ eq: band }), from > bandLow ? edge(bandLow, from - 1) : 0, to < bandHigh ? edge(to + 1, bandHigh) : 0]);
    return all - under - over;
  };
  if (low !== undefined && low === high) return inBand(low, min, max);
  const [within, below, above] = await Promise.all([
    kept({ gt: low, lt: high }),
    low === undefined ? 0 : inBand(low, min, bandBounds(low, lead).high),
    high === undefined ? 0 : inBand(high, bandBounds(high, lead).low, max),
  ]);
  return within + below + above;
}

/**
 * The e-CF of a tenant whose buyer name's search key starts with `prefix`,
 * from `ecf_name_counts` (0025): one row per distinct name in the range.
 * Undefined for an empty prefix, whose range would take in the e-CF without
 * a buyer name (kept under the empty key).
 */
export async function nameCount(engine: Engine, tenant: number, prefix: string, end: string): Promise<number | undefined> {
  if (prefix === '') return undefined;
  const row = await engine.db
    .selectFrom('ecf_name_counts')
    .where('tenant_key', '=', tenant)
    .where('name_key', '>=', prefix)
    .where('name_key', '<', end)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
