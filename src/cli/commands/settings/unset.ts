import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { unsetSetting } from '../../../engine/settings/index.js';
import { findTenant } from '../../../engine/tenants/index.js';

export default class SettingsUnset extends EcfCommand {
  static override description =
    "Remove a platform value or a tenant's override, so the platform value or the default applies again";
  static override examples = [
    '<%= config.bin %> settings unset retry.max',
    '<%= config.bin %> settings unset sequences.mode --tenant 131234567',
  ];
  static override args = {
    key: Args.string({ description: 'Setting key, e.g. retry.max (see `ecf settings list`)', required: true }),
  };
  static override flags = {
    tenant: Flags.string({ description: "Remove this tenant's override (id, or RNC)" }),
  };

  async run() {
    const { args, flags } = await this.parse(SettingsUnset);
    const engine = await this.engine(flags);
    const tenantId = flags.tenant !== undefined ? (await findTenant(engine, flags.tenant)).id : undefined;
    const view = await unsetSetting(engine, args.key, tenantId);
    this.log(record({ ...view, value: JSON.stringify(view.value), default: JSON.stringify(view.default) }));
    return view;
  }
}
