import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { EngineError } from '../../../engine/errors.js';
import { getCertification, recordPaso } from '../../../engine/certification/index.js';
import { signPortalXmlForTenant, signPortalXmlWithP12 } from '../../../engine/certification/portal.js';
import { askPassword, readStdinLine, stdinIsTty } from '../../prompts.js';

/** `<name>.signed.xml` beside the input. */
export const defaultSignedName = (file: string): string => {
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}.signed${ext || '.xml'}`);
};

export default class CertifySign extends EcfCommand {
  static override description =
    "Sign an XML file the certification portal generated (Paso 1 postulación, Paso 13 declaración jurada) with the tenant's certificate: enveloped signature, no other byte changed";
  static override examples = [
    '<%= config.bin %> certify sign postulacion.xml --paso 1',
    '<%= config.bin %> certify sign declaracion.xml --paso 13 --out declaracion-firmada.xml',
    '<%= config.bin %> certify sign declaracion.xml --paso 13 --p12 representante.p12',
  ];
  static override args = { file: Args.string({ description: 'The XML file the portal generated', required: true, ignoreStdin: true }) };
  static override flags = {
    tenant: tenantFlag,
    out: Flags.string({ description: 'Where to write the signed file (default: <name>.signed.xml beside it)', helpValue: 'FILE' }),
    paso: Flags.string({ description: 'The Paso this file is for (1 postulación, 13 declaración jurada); recorded as done in the certification', options: ['1', '13'] }),
    force: Flags.boolean({ description: 'Overwrite the output file if it exists', default: false }),
    p12: Flags.string({
      description: "Sign with this .p12 instead of the tenant's certificate (Paso 13: the legal representative's), without importing it: an imported one would become the signer of every e-CF",
      helpValue: 'FILE',
    }),
    'password-stdin': Flags.boolean({ description: 'Read the --p12 password from stdin instead of asking', dependsOn: ['p12'] }),
  };

  async run() {
    const { args, flags } = await this.parse(CertifySign);
    const paso = flags.paso === undefined ? undefined : (Number(flags.paso) as 1 | 13);
    const input = resolve(args.file);
    const out = resolve(flags.out ?? defaultSignedName(input));
    if (out === input) throw new EngineError('validation', 'PortalXml.SameFile', 'The signed file cannot replace the file the portal generated; choose another --out.');
    let bytes: Buffer;
    try {
      bytes = readFileSync(input);
    } catch (err) {
      throw new EngineError('validation', 'PortalXml.Unreadable', `Cannot read ${args.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
    }
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const signed = flags.p12 === undefined ? await signPortalXmlForTenant(engine, tenant.id, bytes) : signPortalXmlWithP12(bytes, await this.readP12(flags.p12), await this.p12Password(flags.p12, flags['password-stdin']));
    try {
      writeFileSync(out, signed.bytes, { flag: flags.force ? 'w' : 'wx' });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new EngineError('conflict', 'PortalXml.OutputExists', `${out} exists already; pass --force to overwrite it, or --out to write elsewhere.`);
      throw new EngineError('validation', 'PortalXml.OutputUnwritable', `Cannot write ${out} (${code ?? (err as Error).message}).`);
    }
    let recorded: number | null = null;
    if (paso !== undefined && (await getCertification(engine, tenant.id))) {
      await recordPaso(engine, tenant.id, paso, {
        state: 'done',
        note: `Signed ${basename(out)}; upload it in the portal${paso === 1 ? '' : ' ("ENVIAR ARCHIVO")'}.`,
        detail: { file: out, input, root: signed.root, digestValue: signed.digestValue, certificateId: signed.certificateId },
      });
      recorded = paso;
    }
    const result = {
      input,
      file: out,
      bytes: signed.bytes.length,
      root: signed.root,
      certificateId: signed.certificateId,
      certificateSubject: signed.certificateSubject,
      digestValue: signed.digestValue,
      signatureInsertedAt: signed.insertedAt,
      expandedEmptyRoot: signed.expandedEmptyRoot,
      pasoRecorded: recorded,
    };
    this.log(`Signed ${args.file} (root <${signed.root}>) with certificate ${signed.certificateSubject}.`);
    this.log(`Written to ${out}; upload this file in the portal.`);
    if (recorded !== null) this.log(`Paso ${recorded} recorded as done.`);
    else if (paso === undefined) this.log('Pass --paso 1 (postulación) or --paso 13 (declaración jurada) to record the Paso in the certification.');
    else this.log('No certification is started for this tenant, so no Paso was recorded (`ecf certify start`).');
    return result;
  }

  private async readP12(file: string): Promise<Buffer> {
    try {
      return readFileSync(resolve(file));
    } catch (err) {
      throw new EngineError('validation', 'PortalXml.P12Unreadable', `--p12: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
    }
  }

  private async p12Password(file: string, fromStdin: boolean): Promise<string> {
    if (fromStdin) return readStdinLine();
    if (!stdinIsTty()) throw new EngineError('validation', 'Certificate.PasswordRequired', 'stdin is not a terminal, so the --p12 password cannot be asked; pipe it in with --password-stdin.');
    return askPassword(`Password of ${file}:`);
  }
}
