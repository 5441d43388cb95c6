import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { getOrganization } from '../../../engine/tenants/index.js';

export default class OrgShow extends EcfCommand {
  static override description = 'Show an organization: plan, limits and usage';
  static override examples = ['<%= config.bin %> org show 7d7c...'];
  static override args = {
    id: Args.string({ description: 'Organization id', required: true }),
  };
  static override flags = {};

  async run() {
    const { args, flags } = await this.parse(OrgShow);
    const engine = await this.engine(flags);
    const organization = await getOrganization(engine, args.id);
    const { limits, ...rest } = organization;
    this.log(record({ ...rest, ...limits }));
    return organization;
  }
}
