import { Args } from '@oclif/core';
import { tenantFlag } from '../../tenant-flag.js';
import { DecideCommand } from '../../received-decide.js';

export default class ReceivedApprove extends DecideCommand {
  static override description = 'Accept a received e-CF commercially: signs an ACECF (Estado 1) and queues it to the issuer and the tax authority';
  static override examples = ['<%= config.bin %> received approve E310000000001'];
  static override args = { id: Args.string({ description: 'Received e-CF id, or its e-NCF', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(ReceivedApprove);
    return this.decide(flags, args.id, 'accepted', null);
  }
}
