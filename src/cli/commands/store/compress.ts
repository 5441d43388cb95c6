import { Flags } from '@oclif/core';
import { EcfCommand } from '../../base.js';
import { progressBar, type Progress } from '../../progress.js';
import { CONVERT_BATCH_ROWS, convertDocuments, type ConvertProgress } from '../../../engine/store/document-upkeep.js';

export default class StoreCompress extends EcfCommand {
  static override description =
    'Compress the documents an older release stored raw, in place (what `ecf serve` also does in the background after an upgrade). Each document is first checked against the digest its row keeps: one that does not match is damaged, reported and left as it is. Safe to stop at any moment and run again; safe while `ecf serve` runs. Exits 1 if a document is damaged.';
  static override examples = ['<%= config.bin %> store compress', '<%= config.bin %> store compress --json'];
  static override flags = {
    batch: Flags.integer({ description: `Rows per transaction (default ${CONVERT_BATCH_ROWS}); smaller holds the store's write lock for less time`, min: 1, max: 10_000, helpValue: 'ROWS' }),
  };

  async run() {
    const { flags } = await this.parse(StoreCompress);
    const engine = await this.engine(flags);
    const quiet = this.jsonEnabled();
    const onTerminal = process.stderr.isTTY === true;
    let bar: Progress | undefined;
    let table = '';
    let lastLine = 0;
    const report = await convertDocuments(engine, {
      ...(flags.batch !== undefined && { batchRows: flags.batch }),
      onProgress: (p: ConvertProgress) => {
        if (quiet) return;
        if (onTerminal) {
          if (p.table !== table) {
            bar?.finish();
            table = p.table;
            bar = progressBar(p.total, p.table);
          }
          bar!.update(p.done);
          return;
        }
        // Not a terminal: a line per step (a table begun, every 10,000 rows, a table done), for logs.
        if (p.table !== table || p.finished || p.done - lastLine >= 10_000) {
          table = p.table;
          lastLine = p.done;
          process.stderr.write(`${p.table}: ${p.done}/${p.total} rows, ${p.converted} compressed, ${p.damaged} damaged, ${Math.round(p.rate)} documents/s${p.finished ? ', done' : ''}\n`);
        }
      },
      onDamaged: (d) => {
        bar?.clear();
        if (!quiet) this.warn(d.message);
      },
    });
    bar?.finish();
    this.log(`${report.converted} document(s) compressed; ${report.damagedCount} damaged${report.damagedCount ? ' (left as they are: restore them from a backup, docs/operating.md)' : ''}`);
    if (report.damagedCount > 0) process.exitCode = 1;
    return report;
  }
}
