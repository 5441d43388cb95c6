import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { emissionTarget, orgFlag } from '../../emission-target.js';
import { table } from '../../render.js';
import { emissionState, organizationEmissionStates, resumeEmission } from '../../../engine/limits/index.js';

export default class TenantResume extends EcfCommand {
  static override description =
    "Lift the emission pause of a tenant, or of an organization (--org). A tenant stays paused while its organization's pause (or its own) is in force.";
  static override examples = ['<%= config.bin %> tenant resume 131234567', '<%= config.bin %> tenant resume --org 7d7c... --reason "Pago recibido"'];
  static override args = {
    tenant: Args.string({ description: 'Tenant id or RNC; may be left out when there is only one tenant' }),
  };
  static override flags = {
    org: orgFlag,
    reason: Flags.string({ description: 'Why emission resumes (in the event)' }),
  };

  async run() {
    const { args, flags } = await this.parse(TenantResume);
    const engine = await this.engine(flags);
    const target = await emissionTarget(engine, args.tenant, flags.org);
    await resumeEmission(engine, target.scope, target.id, { reason: flags.reason ?? null }, { kind: 'operator' });
    const states = target.scope === 'tenant' ? [await emissionState(engine, target.id)] : await organizationEmissionStates(engine, target.id);
    this.log(table(states, ['tenantId', 'paused', 'source', 'reason', 'until', 'changedBy']));
    return target.scope === 'tenant' ? states[0] : states;
  }
}
