import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { organizationUsage } from '../../../engine/limits/index.js';

export default class OrgUsage extends EcfCommand {
  static override description =
    "An organization's usage in a billing period (a Dominican calendar month): production e-CF against the included quota, and the peak tenants and members against the plan's limits";
  static override examples = ['<%= config.bin %> org usage 7d7c...', '<%= config.bin %> org usage 7d7c... --period 2026-02 --json'];
  static override args = {
    id: Args.string({ description: 'Organization id', required: true }),
  };
  static override flags = {
    period: Flags.string({ description: 'Billing period yyyy-MM (default: the current one)' }),
  };

  async run() {
    const { args, flags } = await this.parse(OrgUsage);
    const engine = await this.engine(flags);
    const usage = await organizationUsage(engine, args.id, flags.period);
    this.log(`Period ${usage.period} (${usage.periodStart} to ${usage.periodEnd})${usage.closed ? ', closed' : ''}`);
    this.log(
      table(
        [
          { dimension: 'e-CF (production)', used: usage.ecf.used, limit: usage.ecf.limit, pct: usage.ecf.pct, current: null },
          { dimension: 'tenants (peak)', ...usage.tenants },
          { dimension: 'members (peak)', ...usage.members },
        ],
        ['dimension', 'used', 'limit', 'pct', 'current'],
      ),
    );
    return usage;
  }
}
