import { Args } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { record } from '../render.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import { findEcf } from '../../engine/ecf/index.js';
import { sendingOf } from '../../engine/submission/index.js';

export default class Status extends EcfCommand {
  static override description = "An e-CF's state with the tax authority: status, trackId, verdict, messages, automatic retries";
  static override examples = ['<%= config.bin %> status E310000000001 --json'];
  static override args = { id: Args.string({ description: 'e-CF id or e-NCF', required: true, ignoreStdin: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(Status);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const ecf = await findEcf(engine, tenant.id, args.id);
    const sending = await sendingOf(engine, ecf);
    const result = { id: ecf.id, encf: ecf.encf, status: ecf.status, taxauth: ecf.taxauth, retry: ecf.retry, sending };
    const underWay = sending.next && {
      next: `${sending.next} at ${sending.dueAt}${sending.inFlight ? ' (under way now)' : ''}`,
      ...(sending.failures > 0 && { unanswered: `${sending.failures} in a row: ${sending.lastError ?? ''}` }),
      ...(sending.busy > 0 && { busy: `${sending.busy} in a row` }),
    };
    this.log(record({ encf: ecf.encf, status: ecf.status, ...(ecf.taxauth ?? {}), retry: ecf.retry, ...underWay }));
    return result;
  }
}
