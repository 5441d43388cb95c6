import { EcfCommand } from '../../base.js';
import { CERTIFICATE_COLUMNS, certificateRow } from '../../certificate-render.js';
import { table } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { listCertificates } from '../../../engine/certificates/index.js';

export default class CertList extends EcfCommand {
  static override description = "List a tenant's certificates, newest first, with their status now";
  static override examples = ['<%= config.bin %> cert list', '<%= config.bin %> cert list --tenant 131234567 --json'];
  static override flags = {
    tenant: tenantFlag,
  };

  async run() {
    const { flags } = await this.parse(CertList);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const certificates = await listCertificates(engine, tenant.id);
    this.log(table(certificates.map(certificateRow), CERTIFICATE_COLUMNS));
    return certificates;
  }
}
