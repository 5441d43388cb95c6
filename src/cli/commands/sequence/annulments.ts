import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { ANNULMENT_COLUMNS, annulmentRow } from '../../sequence-render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { listAnnulments } from '../../../engine/sequences/annulling.js';

export default class SequenceAnnulments extends EcfCommand {
  static override description = "List a tenant's annulments (ANECF), newest first, with their status and the authority's answer";
  static override examples = ['<%= config.bin %> sequence annulments', '<%= config.bin %> sequence annulments --tenant 131234567 --json'];
  static override flags = {
    tenant: tenantFlag,
  };

  async run() {
    const { flags } = await this.parse(SequenceAnnulments);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const annulments = await listAnnulments(engine, tenant.id);
    this.log(table(annulments.map(annulmentRow), ANNULMENT_COLUMNS));
    return annulments;
  }
}
