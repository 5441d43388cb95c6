import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { RANGE_COLUMNS, rangeRow } from '../../sequence-render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { listRanges } from '../../../engine/sequences/index.js';

export default class SequenceList extends EcfCommand {
  static override description = "List a tenant's loaded e-NCF ranges with the next number, what remains and the low-stock flag";
  static override examples = ['<%= config.bin %> sequence list', '<%= config.bin %> sequence list --tenant 131234567 --json'];
  static override flags = {
    tenant: tenantFlag,
  };

  async run() {
    const { flags } = await this.parse(SequenceList);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const ranges = await listRanges(engine, tenant.id);
    this.log(table(ranges.map(rangeRow), RANGE_COLUMNS));
    return ranges;
  }
}
