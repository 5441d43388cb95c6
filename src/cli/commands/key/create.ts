import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { createOrganizationApiKey, createTenantApiKey, findTenant, TENANT_ROLES } from '../../../engine/tenants/index.js';

export default class KeyCreate extends EcfCommand {
  static override description =
    "Create an API key for a tenant (with a role) or for an organization's owner or admin. The whole key is shown once, now.";
  static override examples = [
    '<%= config.bin %> key create --tenant 131234567 --role emisor --name "Caja 1"',
    '<%= config.bin %> key create --org 7d7c... --member 0a1b... --name "Portal contable"',
  ];
  static override flags = {
    tenant: Flags.string({
      description: 'Tenant id, or RNC when it names a single tenant',
      exactlyOne: ['tenant', 'org'],
      dependsOn: ['role'],
      helpGroup: 'TENANT KEY',
    }),
    role: Flags.string({
      description: 'Role of the tenant key',
      options: [...TENANT_ROLES],
      dependsOn: ['tenant'],
      helpGroup: 'TENANT KEY',
    }),
    org: Flags.string({
      description: 'Organization id',
      exactlyOne: ['tenant', 'org'],
      dependsOn: ['member'],
      helpGroup: 'ORGANIZATION KEY',
    }),
    member: Flags.string({
      description: 'Member id (an owner or admin of the organization)',
      dependsOn: ['org'],
      helpGroup: 'ORGANIZATION KEY',
    }),
    name: Flags.string({ description: 'A name to recognise the key by' }),
  };

  async run() {
    const { flags } = await this.parse(KeyCreate);
    const engine = await this.engine(flags);
    const name = flags.name !== undefined ? { name: flags.name } : {};
    const created =
      flags.tenant !== undefined
        ? await createTenantApiKey(engine, {
            tenantId: (await findTenant(engine, flags.tenant)).id,
            role: flags.role,
            ...name,
          })
        : await createOrganizationApiKey(engine, { organizationId: flags.org, memberId: flags.member, ...name });
    this.log(record(created.apiKey));
    this.log('');
    this.log('API key (store it now: it is shown only this once and cannot be shown again):');
    this.log('');
    this.log(`    ${created.key}`);
    this.log('');
    return created;
  }
}
