import { dominicanMonth } from '../clock.js';
import { conflict } from '../errors.js';
import { emit } from '../events/outbox.js';
import type { Db, Tx } from '../store/database.js';

/**
 * The monthly emission cap: production e-CF per tenant and Dominican calendar
 * month, an operator setting (`limits.monthly_ecf_cap`). Checked and told in
 * the issuing transaction, from the trigger-kept `ecf_monthly_counts`.
 */

/** e-CF of a tenant in one environment and Dominican month (yyyy-MM). */
export async function monthlyCount(db: Db, tenantId: string, environment: string, period: string): Promise<number> {
  const row = await db
    .selectFrom('ecf_monthly_counts')
    .select('n')
    .where('tenant_id', '=', tenantId)
    .where('environment', '=', environment)
    .where('period', '=', period)
    .executeTakeFirst();
  return row?.n ?? 0;
}

/** 80 % and 100 %: `used` has reached `pct` of `limit` (integers, no rounding). */
export const reached = (used: number, limit: number, pct: 80 | 100): boolean => used * 100 >= limit * pct;

/** Before numbering a production e-CF: 409 Ecf.MonthlyLimitReached once the month's count is at the cap. */
export async function assertUnderMonthlyCap(tx: Tx, now: Date, tenantId: string, cap: number | null): Promise<void> {
  if (cap === null) return;
  const period = dominicanMonth(now);
  const used = await monthlyCount(tx, tenantId, 'production', period);
  if (used >= cap) {
    throw conflict(
      'Ecf.MonthlyLimitReached',
      `The tenant has issued ${used} production e-CF in ${period}, its monthly cap of ${cap}; new e-CF are refused until next month (Dominican time).`,
    );
  }
}

/**
 * After storing a production e-CF: `tenant.monthly_limit_warning` at 80 % and
 * `tenant.monthly_limit_reached` at 100 % of the cap, each once per month.
 */
export async function noteMonthlyEmission(tx: Tx, now: Date, tenantId: string, cap: number | null): Promise<void> {
  if (cap === null) return;
  const period = dominicanMonth(now);
  const used = await monthlyCount(tx, tenantId, 'production', period);
  const object = { tenantId, period, limit: cap, used };
  if (reached(used, cap, 80)) {
    await emit(tx, now, tenantId, 'tenant.monthly_limit_warning', object, { factKey: `tenant.monthly_limit_warning:${tenantId}:${period}` });
  }
  if (reached(used, cap, 100)) {
    await emit(tx, now, tenantId, 'tenant.monthly_limit_reached', object, { factKey: `tenant.monthly_limit_reached:${tenantId}:${period}` });
  }
}
