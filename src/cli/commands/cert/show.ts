import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { certificateText } from '../../certificate-render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { getCertificate } from '../../../engine/certificates/index.js';

export default class CertShow extends EcfCommand {
  static override description = 'Show a certificate: subject, issuer, validity, status and warnings (never the key or password)';
  static override examples = ['<%= config.bin %> cert show 0b9f... --tenant 131234567'];
  static override args = {
    id: Args.string({ description: 'Certificate id', required: true, ignoreStdin: true }),
  };
  static override flags = {
    tenant: tenantFlag,
  };

  async run() {
    const { args, flags } = await this.parse(CertShow);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const certificate = await getCertificate(engine, tenant.id, args.id);
    this.log(certificateText(certificate));
    return certificate;
  }
}
