import { Flags } from '@oclif/core';
import type { Engine } from '../engine/engine-types.js';
import { EngineError } from '../engine/errors.js';
import { findTenant, listTenants, type TenantView } from '../engine/tenants/index.js';

/** `--tenant` for commands about one tenant's things; optional on a single-tenant appliance. */
export const tenantFlag = Flags.string({
  description: 'Tenant id or RNC; may be left out when there is only one tenant',
});

/** The tenant named by `--tenant`, or the only tenant there is when the flag is left out. */
export async function resolveTenant(engine: Engine, flag: string | undefined): Promise<TenantView> {
  if (flag !== undefined) return findTenant(engine, flag);
  const tenants = await listTenants(engine);
  if (tenants.length === 1) return tenants[0]!;
  throw new EngineError(
    'validation',
    'Tenant.Required',
    tenants.length === 0
      ? 'There are no tenants yet; create one with `ecf tenant create`.'
      : `There are ${tenants.length} tenants; choose one with --tenant.`,
  );
}
