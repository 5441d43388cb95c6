import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { parseSettingText, setSetting } from '../../../engine/settings/index.js';
import { findTenant } from '../../../engine/tenants/index.js';

export default class SettingsSet extends EcfCommand {
  static override description =
    'Set a setting platform-wide, or override it for one tenant. VALUE is read as JSON when it parses (0.2, true, null, "x"), as plain text otherwise.';
  static override examples = [
    '<%= config.bin %> settings set retry.max 5',
    '<%= config.bin %> settings set alerts.business_hours 08:00-18:00 --tenant 131234567',
    '<%= config.bin %> settings set alerts.no_emission_hours null',
  ];
  static override args = {
    key: Args.string({ description: 'Setting key, e.g. retry.max (see `ecf settings list`)', required: true }),
    value: Args.string({ description: 'New value', required: true }),
  };
  static override flags = {
    tenant: Flags.string({ description: 'Override for this tenant only (id, or RNC)' }),
  };

  async run() {
    const { args, flags } = await this.parse(SettingsSet);
    const engine = await this.engine(flags);
    const tenantId = flags.tenant !== undefined ? (await findTenant(engine, flags.tenant)).id : undefined;
    const view = await setSetting(engine, args.key, parseSettingText(args.value), tenantId);
    this.log(record({ ...view, value: JSON.stringify(view.value), default: JSON.stringify(view.default) }));
    return view;
  }
}
