import type { Engine } from '../engine-types.js';
import { holdRangesAfterRestore, verifyCommandFor } from '../sequences/restore-hold.js';

/** What a restore held: how many ranges, and per tenant and environment the command that checks them. */
export interface RangesHeld {
  readonly count: number;
  readonly checks: readonly { readonly tenantId: string; readonly rnc: string; readonly environment: string; readonly ranges: number; readonly command: string }[];
}

/**
 * Holds every e-NCF range of the restored store (sequences/restore-hold.ts):
 * the backup may be older than numbers its store went on to issue, so none is
 * handed out until the authority check, or the operator, says it is unused.
 */
export async function holdRestoredRanges(engine: Engine): Promise<RangesHeld> {
  const count = await holdRangesAfterRestore(engine.db, engine.clock.now());
  const groups = await engine.db
    .selectFrom('sequence_ranges')
    .innerJoin('tenants', 'tenants.id', 'sequence_ranges.tenant_id')
    .select(['sequence_ranges.tenant_id as tenantId', 'tenants.rnc as rnc', 'sequence_ranges.environment as environment'])
    .select((eb) => eb.fn.countAll<number | string>().as('ranges'))
    .groupBy(['sequence_ranges.tenant_id', 'tenants.rnc', 'sequence_ranges.environment'])
    .orderBy('tenants.rnc')
    .orderBy('sequence_ranges.environment')
    .execute();
  const checks = groups.map((g) => ({
    tenantId: g.tenantId,
    rnc: g.rnc,
    environment: g.environment,
    ranges: Number(g.ranges),
    command: verifyCommandFor({ tenant_id: g.tenantId, environment: g.environment }),
  }));
  return { count, checks };
}
