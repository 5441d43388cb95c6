import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';

export default class TaxauthStatus extends EcfCommand {
  static override description =
    "The authority's own word on its services, per environment: status, services not available, the next maintenance window (the status host, with the key of ecf taxauth status-key set); read now unless --cached";
  static override examples = ['<%= config.bin %> taxauth status', '<%= config.bin %> taxauth status --cached --json'];
  static override flags = {
    cached: Flags.boolean({ description: 'Show what was last read (as /readyz does) instead of asking the host now' }),
  };

  async run() {
    const { flags } = await this.parse(TaxauthStatus);
    const engine = await this.engine(flags);
    const { authorityStatus, statusView } = await import('../../../engine/taxauth/index.js');
    const { applyMaintenanceWindows } = await import('../../../engine/submission/contingency-watch.js');
    const state = await authorityStatus(engine, { refresh: flags.cached ? 'never' : 'now' });
    if (state.configured && !flags.cached) await applyMaintenanceWindows(engine);
    const now = engine.clock.now();
    const environments = (['test', 'cert', 'production'] as const).map((environment) => ({ environment, ...statusView(state, environment, now) }));
    this.log(table(environments.map((e) => ({ environment: e.environment, summary: e.summary })), ['environment', 'summary']));
    if (state.configured && (state.keyError || state.snapshot?.error)) process.exitCode = 6;
    return { configured: state.configured, environments, problems: state.snapshot?.problems ?? [] };
  }
}
