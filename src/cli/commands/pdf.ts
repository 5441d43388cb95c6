import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../base.js';
import { resolveTenant, tenantFlag } from '../tenant-flag.js';
import { findEcf } from '../../engine/ecf/index.js';
import { EngineError } from '../../engine/errors.js';
import { ecfRepresentation, LAYOUTS } from '../../engine/representation/index.js';

/** Writes all of `bytes` to stdout and waits until they are handed over. */
const writeStdout = (bytes: Buffer): Promise<void> =>
  new Promise((done, fail) => process.stdout.write(bytes, (err) => (err ? fail(err) : done())));

export default class Pdf extends EcfCommand {
  static override description =
    "Write the printed representation (PDF) of an e-CF, drawn from its signed XML: letter, pos (80 mm roll) or pos58 (58 mm roll). Without --layout, the tenant's representation.default_layout; without -o, the file {RNC}{e-NCF}.pdf in the current directory; -o - writes to stdout";
  static override examples = [
    '<%= config.bin %> pdf E310000000001',
    '<%= config.bin %> pdf E320000000007 --layout pos -o ticket.pdf',
    '<%= config.bin %> pdf 0b9f... --tenant 131234567 -o - | lp',
  ];
  static override args = {
    id: Args.string({ description: 'e-CF id, or e-NCF (E310000000001)', required: true, ignoreStdin: true }),
  };
  static override flags = {
    tenant: tenantFlag,
    layout: Flags.string({ description: 'letter, pos (80 mm roll) or pos58 (58 mm roll)', options: [...LAYOUTS] }),
    output: Flags.string({ char: 'o', description: 'Write to this file ("-": stdout) instead of {RNC}{e-NCF}.pdf', helpValue: 'FILE' }),
  };

  async run() {
    const { args, flags } = await this.parse(Pdf);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const ecf = await findEcf(engine, tenant.id, args.id);
    const r = await ecfRepresentation(engine, tenant.id, ecf.id, { layout: flags.layout });
    const toStdout = flags.output === '-';
    const file = toStdout ? null : (flags.output ?? r.fileName);
    const result = {
      id: r.ecfId,
      encf: r.encf,
      layout: r.layout,
      pages: r.pages,
      bytes: r.pdf.length,
      sha256: createHash('sha256').update(r.pdf).digest('hex'),
      file,
    };
    if (file !== null) {
      try {
        writeFileSync(file, r.pdf);
      } catch (err) {
        const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        throw new EngineError('validation', 'Ecf.OutputUnwritable', `Cannot write ${file} (${reason}).`);
      }
      this.log(`${r.encf}: ${r.layout}, ${r.pages} ${r.pages === 1 ? 'page' : 'pages'}, ${r.pdf.length} bytes written to ${file}`);
      return result;
    }
    // With --json the PDF travels inside the JSON, in base64; otherwise stdout carries the bytes alone.
    if (this.jsonEnabled()) return { ...result, pdfBase64: r.pdf.toString('base64') };
    await writeStdout(r.pdf);
    return result;
  }
}
