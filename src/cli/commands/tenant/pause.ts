import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { emissionTarget, orgFlag } from '../../emission-target.js';
import { table } from '../../render.js';
import { emissionState, organizationEmissionStates, pauseEmission } from '../../../engine/limits/index.js';

export default class TenantPause extends EcfCommand {
  static override description =
    'Pause emission of new e-CF for a tenant, or for every tenant of an organization (--org). POST /ecf answers 409 Ecf.EmissionPaused; stored e-CF, retries, validation and queries keep working. Pausing again changes the reason or until without telling anyone.';
  static override examples = [
    '<%= config.bin %> tenant pause 131234567 --reason "Pago pendiente"',
    '<%= config.bin %> tenant pause --org 7d7c... --reason "Mantenimiento" --until 2026-03-11T08:00:00-04:00',
  ];
  static override args = {
    tenant: Args.string({ description: 'Tenant id or RNC; may be left out when there is only one tenant' }),
  };
  static override flags = {
    org: orgFlag,
    reason: Flags.string({ description: 'Why emission is paused (in the event and in the 409)' }),
    until: Flags.string({ description: 'The pause ends by itself at this date-time, e.g. 2026-03-11T08:00:00-04:00' }),
  };

  async run() {
    const { args, flags } = await this.parse(TenantPause);
    const engine = await this.engine(flags);
    const target = await emissionTarget(engine, args.tenant, flags.org);
    await pauseEmission(engine, target.scope, target.id, { reason: flags.reason ?? null, until: flags.until ?? null }, { kind: 'operator' });
    const states = target.scope === 'tenant' ? [await emissionState(engine, target.id)] : await organizationEmissionStates(engine, target.id);
    this.log(table(states, ['tenantId', 'paused', 'source', 'reason', 'until', 'changedBy']));
    return target.scope === 'tenant' ? states[0] : states;
  }
}
