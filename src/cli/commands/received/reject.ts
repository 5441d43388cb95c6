import { Args, Flags } from '@oclif/core';
import { tenantFlag } from '../../tenant-flag.js';
import { DecideCommand } from '../../received-decide.js';

export default class ReceivedReject extends DecideCommand {
  static override description = 'Reject a received e-CF commercially: signs an ACECF (Estado 2) with the reason and queues it to the issuer and the tax authority';
  static override examples = ['<%= config.bin %> received reject E310000000001 --reason "Mercancía no recibida"'];
  static override args = { id: Args.string({ description: 'Received e-CF id, or its e-NCF', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag, reason: Flags.string({ description: 'Why (at most 250 characters)', required: true }) };

  async run() {
    const { args, flags } = await this.parse(ReceivedReject);
    return this.decide(flags, args.id, 'rejected', flags.reason);
  }
}
