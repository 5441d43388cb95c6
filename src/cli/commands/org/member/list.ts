import { Flags } from '@oclif/core';
import { EcfCommand } from '../../../base.js';
import { table } from '../../../render.js';
import { listMembers } from '../../../../engine/tenants/index.js';

export default class OrgMemberList extends EcfCommand {
  static override description = "List an organization's members";
  static override examples = ['<%= config.bin %> org member list --org 7d7c...'];
  static override flags = {
    org: Flags.string({ description: 'Organization id', required: true }),
  };

  async run() {
    const { flags } = await this.parse(OrgMemberList);
    const engine = await this.engine(flags);
    const members = await listMembers(engine, flags.org);
    this.log(table(members, ['id', 'name', 'email', 'role', 'createdAt']));
    return members;
  }
}
