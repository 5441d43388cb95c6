import type { Environment } from '../schema-types.js';

/**
 * A lane is `group|tenant|class`. Work is claimed round-robin over lanes, so
 * a tenant's backlog takes turns with every other tenant's work, and one
 * class of work (sends) takes turns with another (status queries) of the
 * same tenant. The group is what a concurrency bound applies to: all calls
 * to one authority environment, or all calls to other parties' receivers.
 */
export const laneOf = (group: string, tenantId: string | null, workClass: string): string => `${group}|${tenantId ?? '-'}|${workClass}`;

/** The group of a lane; work without a lane (written before lanes existed) is in `default`. */
export function groupOf(lane: string | null): string {
  if (!lane) return DEFAULT_GROUP;
  const bar = lane.indexOf('|');
  return bar < 0 ? lane : lane.slice(0, bar);
}

export const DEFAULT_GROUP = 'default';
/** Every call to one authority environment shares this group's bound. */
export const taxauthGroup = (environment: Environment): string => `taxauth:${environment}`;
/** Calls to other taxpayers' receivers (ACECF delivery). */
export const RECEIVERS_GROUP = 'receivers';
/** Webhook deliveries to the tenants' own endpoints. */
export const WEBHOOKS_GROUP = 'webhooks';
