import type ExcelJS from 'exceljs';
import { EngineError } from '../errors.js';
import { CONSUMER_THRESHOLD } from '../documents/matrix.js';
import {
  ALL_ECF_KINDS,
  CASE_ID_COLUMN,
  SHEETS,
  columnKey,
  kindOfType,
  resolveColumn,
  type WorkbookKind,
} from './columns.js';
import { approvalData, isUnused, rowData } from './row-document.js';

/**
 * Reads the authority's certification workbooks (CERTIFICATION.md §2.2,
 * §2.3): Paso 2 (sheets `ECF` and `RFCE`) and Paso 3 (sheet
 * `ACEECF_Generadas`). Each data row comes back with its cells exactly as
 * written, and every row or column that cannot become a document is a
 * problem, so the person sees all of them before anything is sent.
 *
 * Cell values: a text cell is its text as is (`385.00` stays `385.00`);
 * `#e` and empty cells are left out. DGII writes every Paso 2 cell as text,
 * so a number there means the file was retyped and its exact text is lost:
 * that cell is a problem. In Paso 3 DGII writes MontoTotal and Estado as
 * numbers: MontoTotal becomes text with 2 decimals (the ACECF schema wants
 * exactly 2) and Estado an integer.
 */

export type SheetName = 'ECF' | 'RFCE' | 'ACEECF_Generadas';

export interface WorkbookRow {
  readonly sheet: SheetName;
  /** The Excel row number (the header is row 1). */
  readonly row: number;
  /** The cells that are neither `#e` nor empty, by header exactly as written (trailing spaces kept). */
  readonly cells: Record<string, string>;
}

export interface WorkbookProblem {
  readonly sheet: string;
  /** The Excel row; 1 for a header problem, 0 for the sheet as a whole (missing). */
  readonly row: number;
  /** The header as written, when one column is at fault. */
  readonly column?: string;
  readonly message: string;
  /**
   * 'warning': worth showing, but the rows can still be sent exactly as given
   * (an unknown header no row fills, CasoPrueba not RNCEmisor+ENCF). Every
   * other problem blocks the run.
   */
  readonly level: 'error' | 'warning';
}

export interface Paso2Workbook {
  readonly paso: 2;
  /** Sheet ECF rows, then sheet RFCE rows, each in the file's order. */
  readonly rows: WorkbookRow[];
  readonly problems: WorkbookProblem[];
}

export interface Paso3Workbook {
  readonly paso: 3;
  readonly rows: WorkbookRow[];
  readonly problems: WorkbookProblem[];
}

const unreadable = (message: string): EngineError => new EngineError('validation', 'Certification.WorkbookUnreadable', message);

async function load(buffer: Buffer | Uint8Array): Promise<ExcelJS.Workbook> {
  const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  // An .xlsx is a ZIP file; anything else (an .xls, a CSV, an HTML page saved as .xlsx) is refused up front.
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50) {
    throw unreadable('The file is not an .xlsx workbook (it is not a ZIP package). Download the workbook again from the certification portal and import it as it came.');
  }
  // Loaded here: exceljs is some 300 files, and only reading a workbook needs it.
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  } catch (e) {
    throw unreadable(`The file cannot be read as an .xlsx workbook: ${zipReason((e as Error).message)}. Download it again from the certification portal.`);
  }
  return workbook;
}

/** jszip words some damage as its own "Bug : …"; the person is told what is wrong with the file instead. */
function zipReason(message: string): string {
  if (/size mismatch/i.test(message)) return 'it is damaged (a part of the ZIP package is not the size its directory says)';
  if (/^bug\s*:/i.test(message)) return `it is damaged (${message.replace(/^bug\s*:\s*/i, '')})`;
  return message;
}

const sheetNamed = (workbook: ExcelJS.Workbook, name: string): ExcelJS.Worksheet | undefined =>
  workbook.worksheets.find((w) => w.name.trim().toLowerCase() === name.toLowerCase());

const sheetList = (workbook: ExcelJS.Workbook): string => workbook.worksheets.map((w) => `"${w.name}"`).join(', ') || 'none';

/** Which certification workbook this is, by its sheets. */
export type WorkbookType = 'paso2' | 'paso3' | 'unknown';

export function workbookType(workbook: ExcelJS.Workbook): WorkbookType {
  if (sheetNamed(workbook, SHEETS.ecf) || sheetNamed(workbook, SHEETS.rfce)) return 'paso2';
  if (sheetNamed(workbook, SHEETS.acecf)) return 'paso3';
  return 'unknown';
}

/** Reads either workbook, telling them apart by their sheets. */
export async function readCertificationWorkbook(buffer: Buffer | Uint8Array): Promise<Paso2Workbook | Paso3Workbook> {
  const workbook = await load(buffer);
  const type = workbookType(workbook);
  if (type === 'paso2') return paso2(workbook);
  if (type === 'paso3') return paso3(workbook);
  throw unrecognised(workbook);
}

const unrecognised = (workbook: ExcelJS.Workbook): EngineError =>
  new EngineError(
    'validation',
    'Certification.WorkbookUnrecognized',
    `This is not a certification workbook: it has the sheets ${sheetList(workbook)}; the Paso 2 workbook has "ECF" and "RFCE", the Paso 3 workbook "ACEECF_Generadas".`,
  );

export async function readPaso2Workbook(buffer: Buffer | Uint8Array): Promise<Paso2Workbook> {
  const workbook = await load(buffer);
  const type = workbookType(workbook);
  if (type === 'paso3') {
    throw new EngineError('validation', 'Certification.WrongWorkbook', 'This is the Paso 3 workbook (commercial approvals, sheet "ACEECF_Generadas"); Paso 2 needs the e-CF test set (sheets "ECF" and "RFCE").');
  }
  if (type === 'unknown') throw unrecognised(workbook);
  return paso2(workbook);
}

export async function readPaso3Workbook(buffer: Buffer | Uint8Array): Promise<Paso3Workbook> {
  const workbook = await load(buffer);
  const type = workbookType(workbook);
  if (type === 'paso2') {
    throw new EngineError('validation', 'Certification.WrongWorkbook', 'This is the Paso 2 workbook (the e-CF test set, sheets "ECF" and "RFCE"); Paso 3 needs the commercial approvals workbook (sheet "ACEECF_Generadas").');
  }
  if (type === 'unknown') throw unrecognised(workbook);
  return paso3(workbook);
}

// ---- cells

type CellText = { text: string } | { number: number } | { problem: string } | null;

/** A cell as DGII wrote it: its text, its number (to be formatted by the caller), or why neither. */
function cellValue(cell: ExcelJS.Cell): CellText {
  const v = cell.value as unknown;
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return { text: v };
  if (typeof v === 'number') return { number: v };
  if (typeof v === 'boolean') return { problem: `a TRUE/FALSE cell (${String(v)})` };
  if (v instanceof Date) return { problem: 'a date cell (DGII writes dates as text, dd-MM-yyyy)' };
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) return { text: (o.richText as { text: string }[]).map((r) => r.text).join('') };
    if ('error' in o) return { problem: `an error cell (${String(o.error)})` };
    if ('formula' in o || 'sharedFormula' in o) {
      const r = o.result;
      if (typeof r === 'string') return { text: r };
      if (typeof r === 'number') return { number: r };
      return { problem: 'a formula without a stored result' };
    }
    if (typeof o.text === 'string') return { text: o.text };
  }
  return { problem: 'a cell of an unexpected kind' };
}

interface SheetData {
  readonly headers: { column: number; header: string }[];
  readonly rows: { row: number; values: Map<string, CellText> }[];
  readonly problems: WorkbookProblem[];
}

/** The header row and the data rows of a sheet; rows with no value (all `#e` or empty) are skipped. */
function readSheet(sheet: ExcelJS.Worksheet, name: SheetName): SheetData {
  const problems: WorkbookProblem[] = [];
  const headers: { column: number; header: string }[] = [];
  const headerRow = sheet.getRow(1);
  const seen = new Map<string, string>();
  for (let c = 1; c <= sheet.columnCount; c++) {
    const v = cellValue(headerRow.getCell(c));
    if (v === null) continue;
    if (!('text' in v)) {
      problems.push({ sheet: name, row: 1, column: `column ${c}`, message: `Header of column ${c} is not text.`, level: 'error' });
      continue;
    }
    if (v.text.trim() === '') continue;
    const key = v.text.trim().toLowerCase();
    const before = seen.get(key);
    if (before !== undefined) {
      problems.push({ sheet: name, row: 1, column: v.text, message: `Header "${v.text}" appears twice (also "${before}").`, level: 'error' });
      continue;
    }
    seen.set(key, v.text);
    headers.push({ column: c, header: v.text });
  }
  const rows: SheetData['rows'] = [];
  for (let r = 2; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    if (!row.hasValues) continue;
    const values = new Map<string, CellText>();
    for (const { column, header } of headers) {
      const v = cellValue(row.getCell(column));
      if (v === null) continue;
      if ('text' in v && isUnused(v.text)) continue;
      values.set(header, v);
    }
    if (values.size > 0) rows.push({ row: r, values });
  }
  return { headers, rows, problems };
}

// ---- Paso 2

function paso2(workbook: ExcelJS.Workbook): Paso2Workbook {
  const rows: WorkbookRow[] = [];
  const problems: WorkbookProblem[] = [];
  const ecfSheet = sheetNamed(workbook, SHEETS.ecf);
  const rfceSheet = sheetNamed(workbook, SHEETS.rfce);
  if (!ecfSheet) problems.push({ sheet: SHEETS.ecf, row: 0, message: `The sheet "ECF" is missing (the workbook has ${sheetList(workbook)}).`, level: 'error' });
  if (!rfceSheet) problems.push({ sheet: SHEETS.rfce, row: 0, message: `The sheet "RFCE" is missing (the workbook has ${sheetList(workbook)}).`, level: 'error' });

  const consumo = new Map<string, { row: number; cells: Record<string, string> }>();
  if (ecfSheet) {
    const encfs = new Map<string, number>();
    for (const r of casesOf(ecfSheet, SHEETS.ecf, ALL_ECF_KINDS, problems)) {
      const { cells, row, kind } = r;
      const encf = cells[headerOf(cells, 'ENCF')];
      if (kind && encf !== undefined) {
        const first = encfs.get(encf);
        if (first !== undefined) problems.push({ sheet: SHEETS.ecf, row, column: 'ENCF', message: `ENCF ${encf} is also the case of row ${first}; each case has its own e-NCF.`, level: 'error' });
        else encfs.set(encf, row);
        if (kind === 'ecf32') consumo.set(encf, { row, cells });
      }
      rows.push({ sheet: SHEETS.ecf, row, cells });
    }
  }
  if (rfceSheet) {
    const used = new Map<string, number>();
    for (const r of casesOf(rfceSheet, SHEETS.rfce, ['rfce'], problems)) {
      const { cells, row } = r;
      const encf = cells[headerOf(cells, 'ENCF')];
      if (encf !== undefined) {
        const full = consumo.get(encf);
        if (ecfSheet && !full) {
          problems.push({ sheet: SHEETS.rfce, row, column: 'ENCF', message: `RFCE ${encf} has no type-32 row with the same ENCF in sheet ECF; the summary needs the signed full e-CF 32 for its security code.`, level: 'error' });
        }
        const first = used.get(encf);
        if (first !== undefined) problems.push({ sheet: SHEETS.rfce, row, column: 'ENCF', message: `ENCF ${encf} is also the RFCE of row ${first}.`, level: 'error' });
        else used.set(encf, row);
        if (full) {
          const fullTotal = Number(full.cells[headerOf(full.cells, 'MontoTotal')]);
          if (fullTotal >= RFCE_CUT) {
            problems.push({ sheet: SHEETS.rfce, row, column: 'ENCF', message: `RFCE ${encf} summarises an e-CF 32 of ${fullTotal.toFixed(2)}, at or above ${RFCE_CUT_TEXT}, which the authority receives in full instead; both are sent as given.`, level: 'warning' });
          }
          const a = cells[headerOf(cells, 'MontoTotal')];
          const b = full.cells[headerOf(full.cells, 'MontoTotal')];
          if (a !== b) {
            problems.push({ sheet: SHEETS.rfce, row, column: 'MontoTotal', message: `RFCE ${encf} has MontoTotal ${a ?? '(none)'} but its e-CF 32 (ECF row ${full.row}) has ${b ?? '(none)'}; both are sent as written.`, level: 'warning' });
          }
        }
      }
      rows.push({ sheet: SHEETS.rfce, row, cells });
    }
  }
  if (ecfSheet && rfceSheet) {
    const summarised = new Set(rows.filter((r) => r.sheet === SHEETS.rfce).map((r) => r.cells[headerOf(r.cells, 'ENCF')]));
    for (const [encf, full] of consumo) {
      const total = Number(full.cells[headerOf(full.cells, 'MontoTotal')]);
      if (total < RFCE_CUT && !summarised.has(encf)) {
        problems.push({ sheet: SHEETS.ecf, row: full.row, column: 'ENCF', message: `e-CF 32 ${encf} is under ${RFCE_CUT_TEXT} but has no row in sheet RFCE: the authority takes such an invoice only as a summary, and the workbook gives none.`, level: 'warning' });
      }
    }
  }
  return { paso: 2, rows, problems };
}

/**
 * The RFCE cut (type 32 under it is summarised) is the pipeline's one threshold. The workbook's
 * MontoTotal is text written by hand: it is compared as a number only to warn, and a cell that is
 * no number warns of nothing (NaN compares false both ways).
 */
const RFCE_CUT = Number(CONSUMER_THRESHOLD);
const RFCE_CUT_TEXT = RFCE_CUT.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** The header under which `cells` holds a column (headers may carry spaces or odd case). */
function headerOf(cells: Record<string, string>, column: string): string {
  if (column in cells) return column;
  return Object.keys(cells).find((h) => h.trim().toLowerCase() === column.toLowerCase()) ?? column;
}

interface SheetCase {
  readonly row: number;
  readonly cells: Record<string, string>;
  readonly kind: WorkbookKind | null;
}

/** The rows of an ECF or RFCE sheet, with every problem that keeps one from becoming a document. */
function casesOf(sheet: ExcelJS.Worksheet, name: 'ECF' | 'RFCE', kinds: readonly WorkbookKind[], problems: WorkbookProblem[]): SheetCase[] {
  const data = readSheet(sheet, name);
  problems.push(...data.problems);
  // A header no kind of this sheet knows: an error on every row that fills it, a warning if none does.
  const unknown = data.headers.filter(({ header }) => !kinds.some((k) => resolveColumn(k, header).type !== 'unknown'));
  for (const { header } of unknown) {
    if (!data.rows.some((r) => r.values.has(header))) {
      problems.push({ sheet: name, row: 1, column: header, message: `Column "${header}" is not an element of any ${name === 'RFCE' ? 'RFCE' : 'e-CF'} schema; no row fills it, so it is ignored.`, level: 'warning' });
    }
  }
  const out: SheetCase[] = [];
  for (const { row, values } of data.rows) {
    const cells: Record<string, string> = {};
    for (const [header, v] of values) {
      if (v && 'text' in v) cells[header] = v.text;
      else if (v && 'number' in v) {
        cells[header] = String(v.number);
        problems.push({ sheet: name, row, column: header, message: `Column "${header}" holds the number ${v.number}, not text: DGII writes every cell of this workbook as text, and its exact text (e.g. 385.00 or 385) cannot be known. Use the workbook as downloaded.`, level: 'error' });
      } else if (v && 'problem' in v) {
        problems.push({ sheet: name, row, column: header, message: `Column "${header}" is ${v.problem}, not text.`, level: 'error' });
      }
    }
    const tipo = cells[headerOf(cells, 'TipoeCF')];
    const encf = cells[headerOf(cells, 'ENCF')];
    let kind: WorkbookKind | null = null;
    if (tipo === undefined) problems.push({ sheet: name, row, column: 'TipoeCF', message: 'TipoeCF is missing: the row cannot be matched to a schema.', level: 'error' });
    else if (name === 'RFCE') {
      if (tipo !== '32') problems.push({ sheet: name, row, column: 'TipoeCF', message: `TipoeCF is ${tipo}; a consumo summary (RFCE) is always type 32.`, level: 'error' });
      kind = 'rfce';
    } else {
      kind = kindOfType(tipo);
      if (!kind) problems.push({ sheet: name, row, column: 'TipoeCF', message: `TipoeCF "${tipo}" is not one of the e-CF types (31, 32, 33, 34, 41, 43, 44, 45, 46, 47).`, level: 'error' });
    }
    if (encf === undefined) problems.push({ sheet: name, row, column: 'ENCF', message: 'ENCF is missing: the case has no e-NCF.', level: 'error' });
    else if (tipo !== undefined && !encf.startsWith(`E${tipo}`)) {
      problems.push({ sheet: name, row, column: 'ENCF', message: `ENCF ${encf} does not start with E${tipo}, the row's TipoeCF.`, level: 'error' });
    }
    const caseId = cells[headerOf(cells, CASE_ID_COLUMN)];
    const rnc = cells[headerOf(cells, 'RNCEmisor')];
    if (caseId !== undefined && encf !== undefined && rnc !== undefined && caseId !== `${rnc}${encf}`) {
      problems.push({ sheet: name, row, column: CASE_ID_COLUMN, message: `CasoPrueba ${caseId} is not RNCEmisor + ENCF (${rnc}${encf}); CasoPrueba is not sent.`, level: 'warning' });
    }
    if (kind) {
      for (const p of rowData(kind, cells).problems) problems.push({ sheet: name, row, ...(p.column ? { column: p.column } : {}), message: p.message, level: 'error' });
    }
    out.push({ row, cells, kind });
  }
  return out;
}

// ---- Paso 3

const APPLICABLE_APPROVAL_TYPES = new Set(['31', '33', '34', '44', '45']);

function paso3(workbook: ExcelJS.Workbook): Paso3Workbook {
  const sheet = sheetNamed(workbook, SHEETS.acecf)!;
  const name = SHEETS.acecf;
  const data = readSheet(sheet, name);
  const problems: WorkbookProblem[] = [...data.problems];
  const rows: WorkbookRow[] = [];
  for (const { header } of data.headers) {
    if (resolveColumn('acecf', header).type === 'unknown' && !data.rows.some((r) => r.values.has(header))) {
      problems.push({ sheet: name, row: 1, column: header, message: `Column "${header}" is not an element of the ACECF; no row fills it, so it is ignored.`, level: 'warning' });
    }
  }
  for (const required of ['Version', 'RNCEmisor', 'eNCF', 'FechaEmision', 'MontoTotal', 'RNCComprador', 'Estado', 'FechaHoraAprobacionComercial']) {
    if (!data.headers.some((h) => columnKey(h.header, ['acecf']) === required)) {
      problems.push({ sheet: name, row: 1, column: required, message: `The column ${required} is missing.`, level: 'error' });
    }
  }
  for (const { row, values } of data.rows) {
    const cells: Record<string, string> = {};
    for (const [header, v] of values) {
      if (!v) continue;
      const column = columnKey(header, ['acecf']);
      if ('text' in v) cells[header] = v.text;
      else if ('number' in v && column === 'MontoTotal') {
        if (Math.round(v.number * 100) / 100 !== v.number) {
          problems.push({ sheet: name, row, column: header, message: `MontoTotal ${v.number} has more than 2 decimals.`, level: 'error' });
        }
        cells[header] = v.number.toFixed(2);
      } else if ('number' in v && column === 'Estado') {
        if (!Number.isInteger(v.number)) problems.push({ sheet: name, row, column: header, message: `Estado ${v.number} is not a whole number.`, level: 'error' });
        cells[header] = String(v.number);
      } else if ('number' in v) {
        cells[header] = String(v.number);
        problems.push({ sheet: name, row, column: header, message: `Column "${header}" holds the number ${v.number}; DGII writes it as text, so its exact text cannot be known.`, level: 'error' });
      } else {
        problems.push({ sheet: name, row, column: header, message: `Column "${header}" is ${v.problem}, not text.`, level: 'error' });
      }
    }
    const encf = cells[headerOf(cells, 'eNCF')];
    if (encf === undefined) problems.push({ sheet: name, row, column: 'eNCF', message: 'eNCF is missing: the approval names no e-CF.', level: 'error' });
    else if (!APPLICABLE_APPROVAL_TYPES.has(encf.slice(1, 3))) {
      problems.push({ sheet: name, row, column: 'eNCF', message: `${encf} is of type ${encf.slice(1, 3)}, for which commercial approval does not apply; it is sent as given.`, level: 'warning' });
    }
    for (const p of approvalData(cells).problems) problems.push({ sheet: name, row, ...(p.column ? { column: p.column } : {}), message: p.message, level: 'error' });
    rows.push({ sheet: name, row, cells });
  }
  return { paso: 3, rows, problems };
}
