import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { certificateText } from '../../certificate-render.js';
import { askConfirm, stdinIsTty } from '../../prompts.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { getCertificate, revokeCertificate } from '../../../engine/certificates/index.js';
import { EngineError } from '../../../engine/errors.js';

export default class CertRevoke extends EcfCommand {
  static override description =
    'Revoke a certificate for good: it never signs again, and the same file cannot be imported again. Asks first unless --yes.';
  static override examples = [
    '<%= config.bin %> cert revoke 0b9f... --tenant 131234567',
    '<%= config.bin %> cert revoke 0b9f... --yes --json',
  ];
  static override args = {
    id: Args.string({ description: 'Certificate id', required: true, ignoreStdin: true }),
  };
  static override flags = {
    tenant: tenantFlag,
    yes: Flags.boolean({ char: 'y', description: 'Revoke without asking (required when stdin is not a terminal)' }),
  };

  async run() {
    const { args, flags } = await this.parse(CertRevoke);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const certificate = await getCertificate(engine, tenant.id, args.id);
    if (!flags.yes && certificate.status !== 'revoked') {
      if (!stdinIsTty()) {
        throw new EngineError(
          'validation',
          'Certificate.ConfirmationRequired',
          'Revoking is permanent and stdin is not a terminal to confirm it; add --yes.',
        );
      }
      const name = certificate.subject.commonName ?? certificate.subject.text;
      const sure = await askConfirm(
        `Revoke certificate ${certificate.id} (${name}) of ${tenant.legalName}? This is permanent: it will never sign again.`,
      );
      if (!sure) {
        this.logToStderr('Not revoked.');
        this.exit(1);
      }
    }
    const revoked = await revokeCertificate(engine, tenant.id, args.id);
    this.log(certificateText(revoked));
    return revoked;
  }
}
