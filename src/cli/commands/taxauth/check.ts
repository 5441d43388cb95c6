import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { checkConnection } from '../../../engine/taxauth/connection.js';

export default class TaxauthCheck extends EcfCommand {
  static override description = 'Authenticate with the tax authority (seed, signature, token) and say how it went; the token is never shown';
  static override examples = ['<%= config.bin %> taxauth check --env test'];
  static override flags = {
    tenant: tenantFlag,
    env: Flags.string({ options: ['test', 'cert', 'production'], description: "Default: the tenant's default environment" }),
  };

  async run() {
    const { flags } = await this.parse(TaxauthCheck);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const result = await checkConnection(engine, tenant.id, flags.env as 'test' | 'cert' | 'production' | undefined);
    this.log(record({ ...result, error: result.error ? `${result.error.kind} ${result.error.status ?? ''} ${result.error.message}` : null }));
    if (!result.authenticated) process.exitCode = 6;
    return result;
  }
}
