import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { findReceivedEcf } from '../../../engine/reception/index.js';

export default class ReceivedShow extends EcfCommand {
  static override description = 'Show a received e-CF by id or e-NCF: the reception result, the ARECF answered and the commercial decision';
  static override examples = ['<%= config.bin %> received show E310000000001', '<%= config.bin %> received show 0b9f... --json'];
  static override args = { id: Args.string({ description: 'Received e-CF id, or its e-NCF', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(ReceivedShow);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const view = await findReceivedEcf(engine, tenant.id, args.id);
    const { arecf: _arecf, commercialApproval, ...rest } = view;
    this.log(
      record({
        ...rest,
        commercialApproval: commercialApproval
          ? { decision: commercialApproval.decision, rejectionReason: commercialApproval.rejectionReason, decidedAt: commercialApproval.decidedAt, issuer: commercialApproval.deliveries.issuer.status, taxauth: commercialApproval.deliveries.taxauth.status }
          : null,
      }),
    );
    return view;
  }
}
