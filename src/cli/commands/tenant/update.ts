import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { ENVIRONMENTS } from '../../../engine/schema-types.js';
import { findTenant, updateTenant } from '../../../engine/tenants/index.js';

export default class TenantUpdate extends EcfCommand {
  static override description = "Change a tenant's names or default environment";
  static override examples = [
    '<%= config.bin %> tenant update 131234567 --trade-name "Ferretería Ñoño"',
    '<%= config.bin %> tenant update 591d... --env cert',
  ];
  static override args = {
    tenant: Args.string({ description: 'Tenant id, or RNC when it names a single tenant', required: true }),
  };
  static override flags = {
    'legal-name': Flags.string({ description: 'Razón social as registered' }),
    'trade-name': Flags.string({ description: 'Nombre comercial' }),
    env: Flags.string({ description: 'Default environment', options: [...ENVIRONMENTS] }),
  };

  async run() {
    const { args, flags } = await this.parse(TenantUpdate);
    const engine = await this.engine(flags);
    const { id } = await findTenant(engine, args.tenant);
    const tenant = await updateTenant(engine, id, {
      ...(flags['legal-name'] !== undefined && { legalName: flags['legal-name'] }),
      ...(flags['trade-name'] !== undefined && { tradeName: flags['trade-name'] }),
      ...(flags.env !== undefined && { defaultEnvironment: flags.env }),
    });
    this.log(record(tenant));
    return tenant;
  }
}
