import { closeSync, openSync, writeSync } from 'node:fs';
import { XlsxWriter } from './xlsx-writer.js';
import { AMOUNT_COLUMNS, LEDGER_HEADER, Totals, csvLine, type DocumentFacts } from './ledger.js';

/**
 * The ledger written as rows arrive: a CSV per side (issued, received) and
 * one XLSX with a sheet per side (xlsx-writer.ts: rows go to disk as they
 * come). The issued side is written whole before the received one starts:
 * a streamed sheet is finished before the next is begun.
 */

type Row = Record<(typeof LEDGER_HEADER)[number], string>;
const AMOUNTS = new Set<string>(AMOUNT_COLUMNS);

class CsvFile {
  readonly #fd: number;
  #buffer: string[] = [];
  constructor(path: string) {
    this.#fd = openSync(path, 'w');
    this.#buffer.push(csvLine(LEDGER_HEADER));
  }
  add(row: Row): void {
    this.#buffer.push(csvLine(LEDGER_HEADER.map((c) => row[c])));
    if (this.#buffer.length >= 2000) this.flush();
  }
  flush(): void {
    writeSync(this.#fd, this.#buffer.join(''));
    this.#buffer = [];
  }
  close(): void {
    this.flush();
    closeSync(this.#fd);
  }
}

export class LedgerFiles {
  readonly totals = { issued: new Totals(), received: new Totals() };
  #side: 'issued' | 'received' | null = null;
  #csv: CsvFile | null = null;
  readonly #workbook: XlsxWriter;

  constructor(readonly paths: { issued: string; received: string; xlsx: string }) {
    this.#workbook = new XlsxWriter(paths.xlsx);
  }

  begin(side: 'issued' | 'received'): void {
    this.#endSide();
    this.#side = side;
    this.#csv = new CsvFile(this.paths[side]);
    this.#workbook.addSheet(side === 'issued' ? 'Issued' : 'Received');
    this.#workbook.addRow(LEDGER_HEADER);
  }

  add(facts: DocumentFacts, row: Row): void {
    if (!this.#side || !this.#csv) throw new Error('LedgerFiles.begin first');
    this.totals[this.#side].add(facts);
    this.#csv.add(row);
    this.#workbook.addRow(LEDGER_HEADER.map((c) => (AMOUNTS.has(c) ? Number(row[c]) : row[c])));
  }

  #endSide(): void {
    if (!this.#side || !this.#csv) return;
    const totals = this.totals[this.#side];
    // The totals row: sums in decimal.js; the sheet shows them as numbers.
    this.#workbook.addRow(LEDGER_HEADER.map((c, i) => (i === 0 ? `TOTAL (${totals.rows})` : AMOUNTS.has(c) ? Number(totals.columns.get(c as never)!.toFixed(2)) : '')));
    this.#csv.close();
    this.#side = null;
  }

  async finish(modifiedAt: Date): Promise<void> {
    this.#endSide();
    await this.#workbook.finish(modifiedAt);
  }

  abandon(): void {
    this.#workbook.abandon();
  }
}
