import type { SandboxMessage } from '../outcomes.js';
import { MISMATCH_CODE, mismatchText } from './rules.js';

/**
 * The authority's judge of a set document (CERTIFICATION.md §2.5, §6): every
 * value compared as text with the set's cell, and every difference one
 * message in its wording. A row is `{ sheet, row, cells }` with the cells
 * that are not `#e`, keyed by the header as written.
 */

export interface WorkbookRow {
  readonly sheet: 'ECF' | 'RFCE' | 'ACEECF_Generadas';
  readonly row: number;
  readonly cells: Readonly<Record<string, string>>;
}

export interface CompareOptions {
  /**
   * Columns the applicant adds and the set cannot hold (FechaHoraFirma, the
   * RFCE's CodigoSeguridadeCF): compared only when the row has a value.
   */
  readonly added?: readonly string[];
  /**
   * Columns compared as amounts: the Paso 3 workbook stores MontoTotal as a
   * number (1430) while the ACECF must write two decimals (1430.00), §2.3.
   */
  readonly asAmount?: readonly string[];
}

/** Never compared: the case id is not an element (§2.4). */
const NOT_ELEMENTS = new Set(['casoprueba']);

/**
 * Header names are matched trimmed and in any casing, so the workbook's
 * quirks (`NumeroContenedor `, `MontosubRecargo`, `ENCF`) meet the
 * document's elements whichever spelling the flattener writes.
 */
const keyOf = (header: string) => header.trim().toLowerCase();

const AMOUNT = /^-?\d+(?:\.\d+)?$/;
const sameAmount = (a: string, b: string) => AMOUNT.test(a) && AMOUNT.test(b) && Number(a) === Number(b);

/**
 * The differences between a row and the document's fields (column → text),
 * in the row's column order, then the document's extra fields. Empty when
 * they agree.
 */
export function compareWithRow(row: WorkbookRow, fields: Readonly<Record<string, string>>, options: CompareOptions = {}): SandboxMessage[] {
  const added = new Set((options.added ?? []).map(keyOf));
  const asAmount = new Set((options.asAmount ?? []).map(keyOf));
  const sent = new Map<string, { name: string; value: string }>();
  for (const [name, value] of Object.entries(fields)) sent.set(keyOf(name), { name: name.trim(), value });
  const messages: SandboxMessage[] = [];
  const seen = new Set<string>();
  for (const [header, expected] of Object.entries(row.cells)) {
    const key = keyOf(header);
    if (NOT_ELEMENTS.has(key) || seen.has(key)) continue;
    seen.add(key);
    const value = sent.get(key)?.value ?? '';
    const agrees = value === expected || (asAmount.has(key) && sameAmount(value, expected));
    if (!agrees) messages.push({ code: MISMATCH_CODE, value: mismatchText(header.trim(), value, expected) });
  }
  for (const [key, { name, value }] of sent) {
    if (seen.has(key) || NOT_ELEMENTS.has(key) || added.has(key)) continue;
    // flatten() lists an element no column holds under its path (/ECF/...): there is no property to name.
    if (name.startsWith('/')) messages.push({ code: MISMATCH_CODE, value: `El elemento ${name.slice(1)} no corresponde a ninguna propiedad del conjunto de datos entregados.` });
    else messages.push({ code: MISMATCH_CODE, value: mismatchText(name, value, '') });
  }
  return messages;
}
