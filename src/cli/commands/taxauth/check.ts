import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { record, table } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';

export default class TaxauthCheck extends EcfCommand {
  static override description =
    "Authenticate with the tax authority (seed, signature, token) and say how it went, with the TLS protocol and cipher negotiated with each of its hosts and the status host's word on the environment; the token is never shown";
  static override examples = ['<%= config.bin %> taxauth check --env test'];
  static override flags = {
    tenant: tenantFlag,
    env: Flags.string({ options: ['test', 'cert', 'production'], description: "Default: the tenant's default environment" }),
  };

  async run() {
    const { flags } = await this.parse(TaxauthCheck);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const { checkConnection } = await import('../../../engine/taxauth/index.js');
    const { tlsChecks } = await import('../../../engine/taxauth/index.js');
    const environment = (flags.env ?? tenant.defaultEnvironment) as 'test' | 'cert' | 'production';
    const [result, tls] = await Promise.all([checkConnection(engine, tenant.id, environment), tlsChecks(engine, environment)]);
    const { authorityStatus, ...connection } = result;
    this.log(record({ ...connection, error: result.error ? `${result.error.kind} ${result.error.status ?? ''} ${result.error.message}` : null, 'authority status': authorityStatus.summary }));
    this.log('');
    this.log(
      table(
        tls.map((t) => ({
          host: t.origin,
          serves: t.hosts.join(', '),
          protocol: t.protocol ?? (t.ok ? '-' : 'failed'),
          cipher: t.cipher ?? '-',
          detail: t.detail ?? (t.standardCipher ? t.standardCipher : ''),
        })),
        ['host', 'serves', 'protocol', 'cipher', 'detail'],
      ),
    );
    if (!result.authenticated || tls.some((t) => !t.ok)) process.exitCode = 6;
    return { ...result, tls };
  }
}
