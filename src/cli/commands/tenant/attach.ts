import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { attachTenant, findTenant } from '../../../engine/tenants/index.js';

export default class TenantAttach extends EcfCommand {
  static override description = "Move an existing tenant into an organization, within the plan's tenant cap";
  static override examples = ['<%= config.bin %> tenant attach 131234567 --org 7d7c...'];
  static override args = {
    tenant: Args.string({ description: 'Tenant id, or RNC when it names a single tenant', required: true }),
  };
  static override flags = {
    org: Flags.string({ description: 'Organization id', required: true }),
  };

  async run() {
    const { args, flags } = await this.parse(TenantAttach);
    const engine = await this.engine(flags);
    const { id } = await findTenant(engine, args.tenant);
    const tenant = await attachTenant(engine, id, flags.org);
    this.log(record(tenant));
    return tenant;
  }
}
