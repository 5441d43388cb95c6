import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { listSettings } from '../../../engine/settings/index.js';
import { findTenant } from '../../../engine/tenants/index.js';

export default class SettingsList extends EcfCommand {
  static override description = 'List every setting with its effective value and where it comes from (default, platform or tenant)';
  static override examples = ['<%= config.bin %> settings list', '<%= config.bin %> settings list --tenant 131234567'];
  static override flags = {
    tenant: Flags.string({ description: "Show this tenant's effective values (id, or RNC)" }),
  };

  async run() {
    const { flags } = await this.parse(SettingsList);
    const engine = await this.engine(flags);
    const tenantId = flags.tenant !== undefined ? (await findTenant(engine, flags.tenant)).id : undefined;
    const settings = await listSettings(engine, tenantId);
    this.log(
      table(
        settings.map((s) => ({ ...s, value: JSON.stringify(s.value), default: JSON.stringify(s.default) })),
        ['key', 'value', 'source', 'scope', 'default'],
      ),
    );
    return settings;
  }
}
