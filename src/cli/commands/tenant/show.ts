import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { EngineError } from '../../../engine/errors.js';
import { findTenant, getEmitterProfile } from '../../../engine/tenants/index.js';

export default class TenantShow extends EcfCommand {
  static override description = 'Show a tenant and, if it has one, its emitter profile';
  static override examples = ['<%= config.bin %> tenant show 131234567', '<%= config.bin %> tenant show 591d... --json'];
  static override args = {
    tenant: Args.string({ description: 'Tenant id, or RNC when it names a single tenant', required: true }),
  };
  static override flags = {};

  async run() {
    const { args, flags } = await this.parse(TenantShow);
    const engine = await this.engine(flags);
    const tenant = await findTenant(engine, args.tenant);
    const emitterProfile = await getEmitterProfile(engine, tenant.id).catch((err: unknown) => {
      if (err instanceof EngineError && err.code === 'EmitterProfile.Missing') return null;
      throw err;
    });
    this.log(record(tenant));
    this.log('');
    if (emitterProfile) {
      this.log('Emitter profile:');
      this.log(record(emitterProfile));
    } else {
      this.log('Emitter profile: (none yet; create it with `ecf tenant profile`)');
    }
    return { tenant, emitterProfile };
  }
}
