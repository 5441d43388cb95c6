import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { toDominicanIso } from '../../../engine/clock.js';
import { cleanStore, countCleanable, type RuleSummary } from '../../../engine/retention/index.js';

/** A rule's line: its cutoff in Dominican time, as every instant the CLI prints. */
const row = (r: RuleSummary) => ({ ...r, cutoff: toDominicanIso(r.cutoff), setting: r.setting ?? (r.days ? `(none: ${r.days} days)` : '(none: once expired)') });

export default class StoreClean extends EcfCommand {
  static override description =
    'Remove now what is not a record and is older than its retention setting (what the store-clean job of `ecf serve` does every 6 hours); records are never touched';
  static override examples = ['<%= config.bin %> store clean --dry-run', '<%= config.bin %> store clean'];
  static override flags = {
    'dry-run': Flags.boolean({ description: 'Only count what would be removed, per rule; remove nothing' }),
  };

  async run() {
    const { flags } = await this.parse(StoreClean);
    const engine = await this.engine(flags);
    if (flags['dry-run']) {
      const summary = await countCleanable(engine);
      this.log(table(summary.rules.map(row), ['rule', 'rows', 'cutoff', 'setting']));
      this.log(`${summary.cleanable} row(s) would be removed; nothing was.`);
      return summary;
    }
    const summary = await cleanStore(engine);
    this.log(table(summary.rules.map(row), ['rule', 'rows', 'cutoff', 'setting']));
    this.log(summary.ran ? `${summary.removed} row(s) removed.` : `${summary.removed} row(s) removed; another process of the cluster is cleaning, and this run left the rest to it.`);
    return summary;
  }
}
