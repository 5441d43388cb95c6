import { Args } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { table } from '../render.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import { findEcf } from '../../engine/ecf/index.js';
import { listAttempts } from '../../engine/submission/index.js';

export default class Attempts extends EcfCommand {
  static override description = 'Every submission cycle of an e-CF with the tax authority, oldest first';
  static override examples = ['<%= config.bin %> attempts E310000000001', '<%= config.bin %> attempts 0b9f... --json'];
  static override args = { id: Args.string({ description: 'e-CF id or e-NCF', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(Attempts);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const ecf = await findEcf(engine, tenant.id, args.id);
    const attempts = await listAttempts(engine, tenant.id, ecf.id);
    this.log(`${ecf.encf}: ${ecf.status}`);
    this.log(
      table(
        attempts.map((a) => ({ ...a, messages: a.messages.map((m) => `${m.code} ${m.value}`).join(' | ') })),
        ['attempt', 'outcome', 'trackId', 'statusCode', 'statusText', 'sequenceUsed', 'retryDecision', 'recordedAt', 'messages'],
      ),
    );
    return attempts;
  }
}
