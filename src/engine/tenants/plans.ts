import { EngineError } from '../errors.js';
import type { PlanLimits } from './schemas.js';

/**
 * Named plans an operator can give an organization. The contract leaves the
 * numbers open; these are the appliance's, and each can be overridden per
 * organization when it is created.
 */
export const PLANS: Readonly<Record<string, PlanLimits>> = {
  solo: { maxTenants: 1, monthlyEcfQuota: 2_000, maxMembers: 2 },
  office: { maxTenants: 10, monthlyEcfQuota: 20_000, maxMembers: 10 },
  firm: { maxTenants: 100, monthlyEcfQuota: 200_000, maxMembers: 50 },
};

export function planLimits(plan: string, overrides: Partial<PlanLimits> = {}): PlanLimits {
  // Own keys only: a plan named "constructor" or "toString" would otherwise find Object's.
  const base = Object.hasOwn(PLANS, plan) ? PLANS[plan] : undefined;
  if (!base) {
    throw new EngineError(
      'validation',
      'Organization.UnknownPlan',
      `Unknown plan ${plan}; known plans: ${Object.keys(PLANS).join(', ')}.`,
    );
  }
  return { ...base, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
}
