import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { listTenants } from '../../../engine/tenants/index.js';

export default class TenantList extends EcfCommand {
  static override description = 'List tenants, optionally those of one organization';
  static override examples = ['<%= config.bin %> tenant list', '<%= config.bin %> tenant list --org 7d7c... --json'];
  static override flags = {
    org: Flags.string({ description: 'Only the tenants of this organization (id)' }),
  };

  async run() {
    const { flags } = await this.parse(TenantList);
    const engine = await this.engine(flags);
    const tenants = await listTenants(engine, { ...(flags.org !== undefined && { organizationId: flags.org }) });
    this.log(table(tenants, ['id', 'rnc', 'legalName', 'tradeName', 'organizationId', 'defaultEnvironment', 'createdAt']));
    return tenants;
  }
}
