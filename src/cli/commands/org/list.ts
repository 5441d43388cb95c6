import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { listOrganizations } from '../../../engine/tenants/index.js';

export default class OrgList extends EcfCommand {
  static override description = 'List organizations with their plan and usage';
  static override examples = ['<%= config.bin %> org list', '<%= config.bin %> org list --json'];
  static override flags = {};

  async run() {
    const { flags } = await this.parse(OrgList);
    const engine = await this.engine(flags);
    const organizations = await listOrganizations(engine);
    this.log(
      table(
        organizations.map((o) => ({
          ...o,
          tenants: `${o.tenantCount}/${o.limits.maxTenants}`,
          members: `${o.memberCount}/${o.limits.maxMembers}`,
          quota: o.limits.monthlyEcfQuota,
        })),
        ['id', 'name', 'plan', 'tenants', 'members', 'quota', 'createdAt'],
      ),
    );
    return organizations;
  }
}
