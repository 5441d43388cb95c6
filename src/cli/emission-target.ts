import { Flags } from '@oclif/core';
import type { Engine } from '../engine/engine-types.js';
import { EngineError } from '../engine/errors.js';
import type { PauseScope } from '../engine/limits/index.js';
import { resolveTenant } from './tenant-flag.js';

export const orgFlag = Flags.string({ description: 'Organization id: pause or resume every tenant of the organization' });

/** `ecf tenant pause|resume [TENANT] [--org ORG]`: one tenant, or a whole organization. */
export async function emissionTarget(engine: Engine, tenant: string | undefined, org: string | undefined): Promise<{ scope: PauseScope; id: string }> {
  if (tenant !== undefined && org !== undefined) {
    throw new EngineError('validation', 'Emission.OneTarget', 'Name a tenant or --org, not both.');
  }
  if (org !== undefined) return { scope: 'organization', id: org };
  return { scope: 'tenant', id: (await resolveTenant(engine, tenant)).id };
}
