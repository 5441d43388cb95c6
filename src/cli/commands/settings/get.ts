import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { settingView } from '../../../engine/settings/index.js';
import { findTenant } from '../../../engine/tenants/index.js';

export default class SettingsGet extends EcfCommand {
  static override description = "Show a setting's effective value, where it comes from, its default and meaning";
  static override examples = [
    '<%= config.bin %> settings get retry.max',
    '<%= config.bin %> settings get sequences.mode --tenant 131234567',
  ];
  static override args = {
    key: Args.string({ description: 'Setting key, e.g. retry.max (see `ecf settings list`)', required: true }),
  };
  static override flags = {
    tenant: Flags.string({ description: "This tenant's effective value (id, or RNC)" }),
  };

  async run() {
    const { args, flags } = await this.parse(SettingsGet);
    const engine = await this.engine(flags);
    const tenantId = flags.tenant !== undefined ? (await findTenant(engine, flags.tenant)).id : undefined;
    const view = await settingView(engine, args.key, tenantId);
    this.log(record({ ...view, value: JSON.stringify(view.value), default: JSON.stringify(view.default) }));
    return view;
  }
}
