import { Args, Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { verifyExport } from '../../../engine/export/index.js';

export default class ExportVerify extends EcfCommand {
  static override description =
    'Check an export from its own bytes, without the store: every file against the manifest (SHA-256, size, missing, extra), the manifest\'s signature, each document\'s own signature and the ledger against the XML. Names every file that fails; exits 1 if any does.';
  static override examples = ['<%= config.bin %> export verify octubre.zip'];
  static override args = { file: Args.string({ description: 'The export (ZIP)', required: true }) };
  static override flags = {
    'skip-signatures': Flags.boolean({ description: 'Do not check each document\'s own signature (a few milliseconds a document); the manifest\'s signature is always checked', default: false }),
  };

  async run() {
    const { args, flags } = await this.parse(ExportVerify);
    const tty = process.stderr.isTTY === true;
    const report = await verifyExport(args.file, {
      signatures: !flags['skip-signatures'],
      ...(tty && { onProgress: (n: number, of: number) => process.stderr.write(`\r${n} of ${of} file(s) checked`.padEnd(40)) }),
    });
    if (tty) process.stderr.write('\n');
    for (const p of report.problems) this.log(`FAILED ${p.file}: ${p.problem}`);
    this.log(
      `${report.files} file(s), ${report.documents} document(s), ${report.signaturesChecked} signature(s) checked, ${report.ledgerRows} ledger row(s); manifest signature ${report.manifestSignature}` +
        (report.certificate ? ` (certificate ${report.certificate.subject.replace(/\n/g, ', ')}, SHA-256 ${report.certificate.sha256})` : '') +
        (report.ok ? ': the export holds' : `: ${report.problems.length} PROBLEM(S)`),
    );
    if (!report.ok) process.exitCode = 1;
    return report;
  }
}
