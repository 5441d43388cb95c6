import { PLACES, UNITS } from '../documents/code-tables.generated.js';

/**
 * How values of the signed XML are written on paper: amounts with thousands
 * separators and two decimals (NOTES §17.10: the "no separators" rule is the
 * XML's, not the paper's), dates as the XML has them (dd-MM-yyyy), codes in
 * words. Amounts are formatted from their decimal text, never through a
 * float, so what is printed is digit for digit what was signed.
 */

/** "4130.00" → "4,130.00"; "-5.5" → "-5.50"; at least two decimals, more when the XML has them (prices). */
export function amount(text: string): string {
  const t = text.trim();
  const negative = t.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? t.slice(1) : t).split('.');
  const grouped = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}.${fraction.padEnd(2, '0')}`;
}

/** Quantities without trailing zeros: "10.00" → "10", "2.50" → "2.5"; thousands grouped. */
export function quantity(text: string): string {
  const [whole = '0', fraction = ''] = text.trim().split('.');
  const grouped = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const f = fraction.replace(/0+$/, '');
  return f ? `${grouped}.${f}` : grouped;
}

/** A percentage as written in the XML, without trailing zeros: "10.00" → "10". */
export const percentage = (text: string): string => quantity(text);

const LOWER_WORDS = new Set(['de', 'del', 'la', 'las', 'los', 'el', 'y', 'e', 'en', 'a']);

/** "SANTO DOMINGO DE GUZMÁN" → "Santo Domingo de Guzmán"; abbreviations in parentheses stay as they are. */
export function titleCase(upper: string): string {
  return upper
    .toLocaleLowerCase('es')
    .split(' ')
    .map((w, i) => {
      if (w.startsWith('(')) return w.toLocaleUpperCase('es');
      if (i > 0 && LOWER_WORDS.has(w)) return w;
      return w.replace(/(^|[-/])(\p{L})/gu, (_, sep: string, c: string) => sep + c.toLocaleUpperCase('es'));
    })
    .join(' ');
}

/** The name of a province, municipality or district code of the authority's list, or the code when unknown. */
export function placeName(code: string): string {
  const raw = PLACES[code];
  if (!raw) return code;
  return titleCase(raw.replace(/^(MUNICIPIO|PROVINCIA)\s+/, '').replace(/\.$/, ''));
}

/** The abbreviation of a unit code (Tabla IV), as DGII's models print it (UND, CAJ, PZA). */
export const unitAbbreviation = (code: string): string => UNITS[Number(code)]?.abbreviation ?? code;

/**
 * The base fonts of a PDF (Helvetica) carry WinAnsi: Latin-1 plus a few
 * typographic signs (– — “ ” ‘ ’ … € •). Spanish needs nothing more. Any
 * other character is written as its base letter when it has one (ā → a),
 * else as "?", so a glyph the font lacks never turns into garbage.
 */
const WIN_ANSI_EXTRA = new Set([
  0x152, 0x153, 0x160, 0x161, 0x178, 0x17d, 0x17e, 0x192, 0x2c6, 0x2dc, 0x2013, 0x2014, 0x2018, 0x2019, 0x201a, 0x201c, 0x201d,
  0x201e, 0x2020, 0x2021, 0x2022, 0x2026, 0x2030, 0x2039, 0x203a, 0x20ac, 0x2122,
]);
const printable = (c: number) => (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff) || WIN_ANSI_EXTRA.has(c);
const SIMPLE = /^[\x20-\x7e\u00a0-\u00ff]*$/;

export function pdfText(text: string): string {
  if (SIMPLE.test(text)) return text;
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const c = ch.codePointAt(0)!;
    if (printable(c)) out += ch;
    else if (c === 0x09 || c === 0x0a || c === 0x0d) out += ' ';
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) continue;
    else {
      const base = ch.normalize('NFD').replace(/\p{M}/gu, '');
      out += base.length > 0 && [...base].every((b) => printable(b.codePointAt(0)!)) ? base : '?';
    }
  }
  return out;
}
