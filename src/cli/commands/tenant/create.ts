import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { createTenant } from '../../../engine/tenants/index.js';

export default class TenantCreate extends EcfCommand {
  static override description = 'Create a tenant (a taxpayer), optionally inside an organization';
  static override examples = [
    '<%= config.bin %> tenant create --rnc 131234567 --legal-name "Ferretería Ñoño SRL" --org 7d7c...',
  ];
  static override flags = {
    rnc: Flags.string({ description: 'RNC (9 digits) or cédula (11 digits)', required: true }),
    'legal-name': Flags.string({ description: 'Razón social as registered', required: true }),
    'trade-name': Flags.string({ description: 'Nombre comercial' }),
    org: Flags.string({ description: 'Organization id' }),
    env: Flags.string({ description: 'Default environment', options: ['test', 'cert', 'production'] }),
  };

  async run() {
    const { flags } = await this.parse(TenantCreate);
    const engine = await this.engine(flags);
    const tenant = await createTenant(engine, {
      rnc: flags.rnc,
      legalName: flags['legal-name'],
      ...(flags['trade-name'] !== undefined && { tradeName: flags['trade-name'] }),
      ...(flags.org !== undefined && { organizationId: flags.org }),
      ...(flags.env !== undefined && { defaultEnvironment: flags.env }),
    });
    this.log(record(tenant));
    return tenant;
  }
}
