import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Args } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant, tenantFlag } from '../../tenant-flag.js';
import { importWorkbook } from '../../../engine/certification/runs.js';
import { EngineError } from '../../../engine/errors.js';

export default class CertifyImport extends EcfCommand {
  static override description =
    'Import a certification workbook downloaded from the portal (Paso 2 "DESCARGAR COMPROBANTES" or Paso 3 "DESCARGAR APROBACIONES COMERCIALES"): shows the cases it found and every row it cannot send, before anything is sent';
  static override examples = ['<%= config.bin %> certify import 131000001-22052026125156.xlsx'];
  static override args = { file: Args.string({ description: 'The .xlsx workbook', required: true }) };
  static override flags = { tenant: tenantFlag };

  async run() {
    const { args, flags } = await this.parse(CertifyImport);
    let bytes: Buffer;
    try {
      bytes = readFileSync(args.file);
    } catch (e) {
      throw new EngineError('validation', 'Certification.WorkbookUnreadable', `Cannot read ${args.file}: ${(e as Error).message}`);
    }
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    const summary = await importWorkbook(engine, tenant.id, bytes, basename(args.file));
    this.log(`Paso ${summary.paso} workbook ${summary.file}: ${summary.total} cases`);
    for (const [kind, n] of Object.entries(summary.byKind).sort()) this.log(`  ${kind.padEnd(6)} ${n}`);
    if (summary.uploads > 0) this.log(`  of which ${summary.uploads} consumo e-CF 32 under DOP 250,000: their RFCE is sent, the full XML is uploaded by you in the portal`);
    if (summary.problems.length > 0) {
      this.log(`${summary.problems.length} problem(s); nothing was imported:`);
      for (const p of summary.problems) this.log(`  ${p.sheet}${p.row !== null ? ` row ${p.row}` : ''}${p.column ? `, ${p.column.trimEnd()}` : ''}: ${p.message}`);
      process.exitCode = 2;
    } else {
      if (summary.kept.length > 0) {
        this.log(`  kept from the earlier generation: the accepted RFCE of ${summary.kept.join(', ')} and the signed e-CF 32 whose security codes they carry (the authority keeps those summaries; these bytes go in the portal's box)`);
      }
      this.log(`Imported as generation ${summary.generation}. Next: ecf certify run`);
    }
    return summary;
  }
}
