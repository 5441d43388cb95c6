import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { addRange } from '../../../engine/sequences/index.js';
import { ENVIRONMENTS } from '../../../engine/schema-types.js';

export default class SequenceAdd extends EcfCommand {
  static override description =
    'Load an e-NCF range the tax authority authorized for one type and environment. Ranges of the same type and environment may not overlap; types 32 and 34 take no expiry date, every other type needs one.';
  static override examples = [
    '<%= config.bin %> sequence add --env test --type 31 --from 1 --to 1000 --expires 2027-12-31',
    '<%= config.bin %> sequence add --tenant 131234567 --env production --type 32 --from 1 --to 50000 --json',
  ];
  static override flags = {
    tenant: tenantFlag,
    env: Flags.string({ description: 'Environment the range was authorized for', options: [...ENVIRONMENTS], required: true }),
    type: Flags.string({ description: 'e-CF type (31, 32, 33, 34, 41, 43, 44, 45, 46, 47)', helpValue: 'N', required: true }),
    from: Flags.string({ description: 'First authorized sequence number', helpValue: 'N', required: true }),
    to: Flags.string({ description: 'Last authorized sequence number', helpValue: 'N', required: true }),
    expires: Flags.string({ description: 'Expiry date of the range (FechaVencimientoSecuencia), YYYY-MM-DD', helpValue: 'YYYY-MM-DD' }),
  };

  async run() {
    const { flags } = await this.parse(SequenceAdd);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const range = await addRange(engine, {
      tenantId: tenant.id,
      environment: flags.env,
      type: flags.type,
      rangeFrom: flags.from,
      rangeTo: flags.to,
      ...(flags.expires !== undefined && { expiresOn: flags.expires }),
    });
    this.log(record(range));
    return range;
  }
}
