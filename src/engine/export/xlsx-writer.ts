import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { escapeText } from './manifest.js';
import { ZipWriter } from './zip-writer.js';

/**
 * A minimal streaming XLSX (Office Open XML SpreadsheetML) writer: each
 * sheet's rows go to a side file as they come (numbers as numbers, text as
 * inline strings), and the workbook is packed by zip-writer.ts at the end.
 * exceljs's WorkbookWriter (4.4) keeps every part in a JSZip until its
 * commit, so a million-row ledger would be held whole; this holds one row.
 */

const CONTENT_TYPES = (sheets: number) =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
  Array.from({ length: sheets }, (_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('') +
  '</Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>';
const WORKBOOK = (names: readonly string[]) =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>' +
  names.map((n, i) => `<sheet name="${escapeText(n)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
  '</sheets></workbook>';
const WORKBOOK_RELS = (sheets: number) =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  Array.from({ length: sheets }, (_, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('') +
  '</Relationships>';
const SHEET_START = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
const SHEET_END = '</sheetData></worksheet>';

/** XML 1.0 has no place for most control characters: a cell drops them rather than break the part. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;

export type Cell = string | number;

/** A, B, … Z, AA, AB …: the column of a cell reference. */
function columnName(i: number): string {
  let name = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}
const COLUMNS = Array.from({ length: 64 }, (_, i) => columnName(i));

export class XlsxWriter {
  readonly #sheets: { name: string; path: string }[] = [];
  #fd: number | null = null;
  #row = 0;
  #pending: string[] = [];

  constructor(readonly path: string) {}

  addSheet(name: string): void {
    this.#endSheet();
    const path = `${this.path}.sheet${this.#sheets.length + 1}`;
    this.#sheets.push({ name, path });
    this.#fd = openSync(path, 'w');
    this.#row = 0;
    this.#pending = [SHEET_START];
  }

  addRow(cells: readonly Cell[]): void {
    if (this.#fd === null) throw new Error('XlsxWriter.addSheet first');
    const r = ++this.#row;
    const xml = cells
      .map((v, i) => {
        const at = `${COLUMNS[i] ?? columnName(i)}${r}`;
        if (typeof v === 'number') return `<c r="${at}"><v>${v}</v></c>`;
        return v === '' ? '' : `<c r="${at}" t="inlineStr"><is><t xml:space="preserve">${escapeText(v.replace(CONTROL, ''))}</t></is></c>`;
      })
      .join('');
    this.#pending.push(`<row r="${r}">${xml}</row>`);
    if (this.#pending.length >= 1000) this.#flush();
  }

  #flush(): void {
    if (this.#fd === null || this.#pending.length === 0) return;
    writeSync(this.#fd, this.#pending.join(''));
    this.#pending = [];
  }

  #endSheet(): void {
    if (this.#fd === null) return;
    this.#pending.push(SHEET_END);
    this.#flush();
    closeSync(this.#fd);
    this.#fd = null;
  }

  /** Packs the workbook into `path` (fsynced); the side files go. */
  async finish(modifiedAt: Date): Promise<void> {
    this.#endSheet();
    const zip = new ZipWriter(this.path, modifiedAt);
    try {
      const n = this.#sheets.length;
      zip.addBuffer('[Content_Types].xml', Buffer.from(CONTENT_TYPES(n)));
      zip.addBuffer('_rels/.rels', Buffer.from(ROOT_RELS));
      zip.addBuffer('xl/workbook.xml', Buffer.from(WORKBOOK(this.#sheets.map((s) => s.name))));
      zip.addBuffer('xl/_rels/workbook.xml.rels', Buffer.from(WORKBOOK_RELS(n)));
      for (const [i, s] of this.#sheets.entries()) await zip.addFile(`xl/worksheets/sheet${i + 1}.xml`, s.path);
      await zip.finish();
    } catch (e) {
      zip.abandon();
      throw e;
    } finally {
      for (const s of this.#sheets) rmSync(s.path, { force: true });
    }
  }

  abandon(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
    for (const s of this.#sheets) rmSync(s.path, { force: true });
  }
}
