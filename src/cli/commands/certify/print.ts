import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { table } from '../../render.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { renderPrintSlots, type PrintLayout } from '../../../engine/certification/portal.js';

export default class CertifyPrint extends EcfCommand {
  static override description = [
    'Pasos 5–6 (Representación Impresa): write the printed representation (PDF) of one accepted simulation e-CF for each of the portal\'s 11 slots (31, 33, 34, 41, 43, 44, 45, 46, 47, "32 >=RD$250mil", "32 < RD$250mil").',
    'Each file is named NN_tipo-…_{e-NCF}.pdf, NN being the slot\'s place on the portal\'s screen. The sum must stay within the portal\'s 10 MB (read as 10,000,000 bytes): over it, nothing is written and every size is shown.',
    'A slot without an accepted simulation e-CF is named; run `ecf certify simulate` first. Exit code 0 when all 11 are written, 1 otherwise.',
  ].join('\n');
  static override examples = ['<%= config.bin %> certify print', '<%= config.bin %> certify print --out ./paso5 --layout roll --json'];
  static override flags = {
    tenant: tenantFlag,
    out: Flags.string({ description: 'Folder to write the PDFs in (created if missing)', default: 'representacion-impresa', helpValue: 'DIR' }),
    layout: Flags.string({ description: 'letter, or roll (80 mm receipt)', options: ['letter', 'roll'], default: 'letter' }),
  };

  async run() {
    const { flags } = await this.parse(CertifyPrint);
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const r = await renderPrintSlots(engine, tenant.id, { outDir: flags.out, layout: flags.layout as PrintLayout });
    this.log(table(r.files.map((f) => ({ slot: f.label, 'e-ncf': f.encf, pages: f.pages, bytes: f.bytes, file: f.file })), ['slot', 'e-ncf', 'pages', 'bytes', 'file']));
    for (const m of r.missing) this.log(`slot "${m.label}": no accepted simulation e-CF, no file`);
    this.log(`${r.files.length} files, ${r.totalBytes} bytes of ${r.limitBytes} allowed, in ${r.outDir}`);
    this.log(r.note);
    if (!r.complete) process.exitCode = 1;
    return r;
  }
}
