import { Args } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import { findEcf } from '../../engine/ecf/index.js';
import { retryEcf } from '../../engine/submission/retrying.js';

export default class Retry extends EcfCommand {
  static override description =
    'Send the same signed XML to the tax authority again (e-CF failed, in review, or rejected without a consumed e-NCF); the running jobs pick it up';
  static override examples = ['<%= config.bin %> retry E310000000001'];
  static override args = { id: Args.string({ description: 'e-CF id or e-NCF', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(Retry);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const ecf = await retryEcf(engine, tenant.id, (await findEcf(engine, tenant.id, args.id)).id);
    this.log(`${ecf.encf} queued again (status ${ecf.status}).`);
    return ecf;
  }
}
