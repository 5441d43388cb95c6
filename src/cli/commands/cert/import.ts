import { readFileSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { certificateText } from '../../certificate-render.js';
import { askPassword, readStdinLine, stdinIsTty } from '../../prompts.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { uploadCertificate } from '../../../engine/certificates/index.js';
import { EngineError } from '../../../engine/errors.js';

export default class CertImport extends EcfCommand {
  static override description =
    "Import a tenant's signing certificate (.p12/.pfx). The password is asked without echo, or read from stdin with --password-stdin; the file and password go to the secret store, never the database.";
  static override examples = [
    '<%= config.bin %> cert import firma.p12 --tenant 131234567',
    "printf '%s' \"$P12_PASSWORD\" | <%= config.bin %> cert import firma.p12 --password-stdin --json",
  ];
  static override args = {
    file: Args.string({ description: 'The .p12/.pfx file', required: true, ignoreStdin: true }),
  };
  static override flags = {
    tenant: tenantFlag,
    'password-stdin': Flags.boolean({
      description: 'Read the password from stdin (all of it, less one trailing line break)',
    }),
  };

  async run() {
    const { args, flags } = await this.parse(CertImport);
    let file: Buffer;
    try {
      file = readFileSync(args.file);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new EngineError('validation', 'Certificate.FileUnreadable', `Cannot read the certificate file ${args.file} (${reason}).`);
    }
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    let password: string;
    if (flags['password-stdin']) {
      password = await readStdinLine();
    } else if (stdinIsTty()) {
      password = await askPassword(`Password of ${args.file}:`);
    } else {
      throw new EngineError(
        'validation',
        'Certificate.PasswordRequired',
        'stdin is not a terminal, so the password cannot be asked; pipe it in with --password-stdin.',
      );
    }
    const certificate = await uploadCertificate(engine, tenant.id, { file, password });
    this.log(certificateText(certificate));
    return certificate;
  }
}
