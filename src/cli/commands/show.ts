import { Args } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { ecfText } from '../ecf-render.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import { findEcf } from '../../engine/ecf/index.js';

export default class Show extends EcfCommand {
  static override description = 'Show an e-CF by id or e-NCF: status, numbers, totals, security code, QR URL and the tax authority answer';
  static override examples = ['<%= config.bin %> show E310000000001', '<%= config.bin %> show 0b9f... --tenant 131234567 --json'];
  static override args = {
    id: Args.string({ description: 'e-CF id, or e-NCF (E310000000001)', required: true, ignoreStdin: true }),
  };
  static override flags = {
    tenant: tenantFlag,
  };

  async run() {
    const { args, flags } = await this.parse(Show);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const ecf = await findEcf(engine, tenant.id, args.id);
    this.log(ecfText(ecf, flags.tenant));
    return ecf;
  }
}
