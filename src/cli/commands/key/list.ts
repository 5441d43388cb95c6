import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { findTenant, listApiKeys } from '../../../engine/tenants/index.js';

export default class KeyList extends EcfCommand {
  static override description = 'List API keys by their visible prefix (the whole key is never shown again)';
  static override examples = [
    '<%= config.bin %> key list',
    '<%= config.bin %> key list --tenant 131234567',
    '<%= config.bin %> key list --org 7d7c... --json',
  ];
  static override flags = {
    tenant: Flags.string({ description: 'Only the keys of this tenant (id, or RNC)', exclusive: ['org'] }),
    org: Flags.string({ description: 'Only the keys of this organization (id)', exclusive: ['tenant'] }),
  };

  async run() {
    const { flags } = await this.parse(KeyList);
    const engine = await this.engine(flags);
    const keys = await listApiKeys(engine, {
      ...(flags.tenant !== undefined && { tenantId: (await findTenant(engine, flags.tenant)).id }),
      ...(flags.org !== undefined && { organizationId: flags.org }),
    });
    this.log(
      table(
        keys.map((k) => ({ ...k, for: k.tenantId ? `tenant ${k.tenantId}` : `org ${k.organizationId}` })),
        ['prefix', 'id', 'role', 'for', 'name', 'createdAt', 'lastUsedAt', 'revokedAt'],
      ),
    );
    return keys;
  }
}
