import { Flags } from '@oclif/core';
import { EcfCommand } from '../../../base.js';
import { record } from '../../../render.js';
import { addMember, ORGANIZATION_ROLES } from '../../../../engine/tenants/index.js';

export default class OrgMemberAdd extends EcfCommand {
  static override description = "Add a member to an organization, within its plan's member cap";
  static override examples = [
    '<%= config.bin %> org member add --org 7d7c... --name "Luis Gómez" --role admin --email luis@contadores.do',
  ];
  static override flags = {
    org: Flags.string({ description: 'Organization id', required: true }),
    name: Flags.string({ description: "Member's name", required: true }),
    role: Flags.string({ description: 'Role in the organization', required: true, options: [...ORGANIZATION_ROLES] }),
    email: Flags.string({ description: "Member's e-mail" }),
  };

  async run() {
    const { flags } = await this.parse(OrgMemberAdd);
    const engine = await this.engine(flags);
    const member = await addMember(engine, flags.org, {
      name: flags.name,
      role: flags.role,
      ...(flags.email !== undefined && { email: flags.email }),
    });
    this.log(record(member));
    return member;
  }
}
