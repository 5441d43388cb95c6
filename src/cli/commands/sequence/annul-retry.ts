import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { annulmentText } from '../../sequence-render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { retryAnnulment } from '../../../engine/sequences/annulling.js';

export default class SequenceAnnulRetry extends EcfCommand {
  static override description =
    'Send the same signed ANECF of a failed or rejected annulment to the tax authority again; exits 1 unless it is now voided';
  static override examples = ['<%= config.bin %> sequence annul-retry 0b9f...'];
  static override args = { id: Args.string({ description: 'Annulment id', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(SequenceAnnulRetry);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const annulment = await retryAnnulment(engine, tenant.id, args.id);
    this.log(annulmentText(annulment));
    if (annulment.status !== 'voided') process.exitCode = 1;
    return annulment;
  }
}
