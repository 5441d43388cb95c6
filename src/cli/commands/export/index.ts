import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { resolveTenant } from '../../tenant-flag.js';
import { exportPeriod, exportPeriodFile, type ExportProgress } from '../../../engine/export/index.js';

export default class Export extends EcfCommand {
  static override description =
    'Export a tenant\'s period as one ZIP file: every signed document as stored, the ledger (CSV and XLSX) and a manifest signed with the tenant\'s active certificate (docs/record.md). Written to FILE.partial, then renamed: FILE exists only once complete. Check it with `ecf export verify FILE`.';
  static override examples = [
    '<%= config.bin %> export --tenant 131234567 --month 2026-10 -o octubre.zip',
    '<%= config.bin %> export --tenant 131234567 --from 2026-10-01 --to 2026-10-15 -o quincena.zip',
  ];
  static override flags = {
    tenant: Flags.string({ description: 'The tenant (id or RNC)', required: true }),
    month: Flags.string({ description: 'A Dominican calendar month, yyyy-MM', exclusive: ['from', 'to'] }),
    from: Flags.string({ description: 'First day (yyyy-MM-dd, Dominican date, included)', dependsOn: ['to'] }),
    to: Flags.string({ description: 'Last day (yyyy-MM-dd, Dominican date, included)', dependsOn: ['from'] }),
    env: Flags.string({ description: "The environment exported (test, cert or production); the tenant's default environment when left out" }),
    output: Flags.string({ char: 'o', description: 'The ZIP file to write', required: true }),
  };

  async run() {
    const { flags } = await this.parse(Export);
    const period = exportPeriod({ month: flags.month, from: flags.from, to: flags.to });
    const engine = await this.engine(flags);
    const tenant = await resolveTenant(engine, flags.tenant);
    // A progress line only for a person watching: never in a pipe or a log.
    const tty = process.stderr.isTTY === true;
    const onProgress = tty ? (p: ExportProgress) => process.stderr.write(`\r${p.phase}: ${p.documents} document(s) written`.padEnd(60)) : undefined;
    const report = await exportPeriodFile(engine, tenant.id, period, resolve(flags.output), { environment: flags.env, ...(onProgress && { onProgress }) });
    if (tty) process.stderr.write('\n');
    this.log(
      `${report.file}: ${report.files} file(s), ${report.bytes} bytes; ${report.issued} issued, ${report.annulments} annulment(s), ${report.received} received, ${report.approvals} approval(s) received, ${report.environment}, ${report.from} to ${report.to}` +
        (report.journal ? `; journal at entry ${report.journal.seq} (${report.journal.link})${report.journal.closing ? ', month closed' : ''}` : '; no journal entry before the period\'s end'),
    );
    return report;
  }
}
