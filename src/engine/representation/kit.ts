import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { pdfText } from './format.js';

/**
 * The few drawing operations the layouts use. pdfkit writes the file (pages,
 * resources, compression, cross-reference table, metadata); what is on a
 * page is written here as PDF operators, one content stream per page:
 * text placed at a point (the layouts measure and wrap themselves, so each
 * page's content is known before it is drawn), rules, boxes, and the QR as
 * one path of vector modules. pdfkit's own text and shape calls cost several
 * times more per element, mostly in font set-up and kerning we do not need.
 *
 * Fonts are two of the PDF base fonts (Helvetica and Helvetica-Bold, WinAnsi
 * encoding): every viewer and printer has them, so nothing is embedded.
 * Their advance widths come from pdfkit's copy of the Adobe metrics; text
 * is drawn without kerning, exactly as wide as measured.
 */

export const MM = 72 / 25.4;

export type FontName = 'regular' | 'bold';

export interface TextStyle {
  readonly font?: FontName;
  readonly size: number;
  /** Where `x` is: the left edge (default), the right edge, or the centre of the text. */
  readonly align?: 'left' | 'right' | 'center';
  /** Grey level, 0 black (default) to 1 white. */
  readonly grey?: number;
}

export interface DocumentInfo {
  readonly title: string;
  readonly author: string;
  readonly subject: string;
  /** The PDF's creation date: the signing instant, so the same e-CF always gives the same bytes. */
  readonly createdAt: Date;
}

/** Unicode code points of the WinAnsi characters above Latin-1's range, with their byte. */
const WIN_ANSI_HIGH: ReadonlyMap<number, number> = new Map([
  [0x152, 0x8c], [0x153, 0x9c], [0x160, 0x8a], [0x161, 0x9a], [0x178, 0x9f], [0x17d, 0x8e], [0x17e, 0x9e], [0x192, 0x83],
  [0x2c6, 0x88], [0x2dc, 0x98], [0x2013, 0x96], [0x2014, 0x97], [0x2018, 0x91], [0x2019, 0x92], [0x201a, 0x82], [0x201c, 0x93],
  [0x201d, 0x94], [0x201e, 0x84], [0x2020, 0x86], [0x2021, 0x87], [0x2022, 0x95], [0x2026, 0x85], [0x2030, 0x89], [0x2039, 0x8b],
  [0x203a, 0x9b], [0x20ac, 0x80], [0x2122, 0x99],
]);

const BASE_FONTS: Record<FontName, string> = { regular: 'Helvetica', bold: 'Helvetica-Bold' };
/** Ascender of both fonts, in 1/1000 em: text is placed by its top, as the layouts think of it. */
const ASCENDER = 718;

interface Metrics {
  /** Advance width in 1/1000 em, by code point. */
  readonly widths: Map<number, number>;
}

let metrics: Record<FontName, Metrics> | undefined;

/** Widths of every character the fonts can draw, read once from pdfkit's metrics. */
function fontMetrics(): Record<FontName, Metrics> {
  if (metrics) return metrics;
  const doc = new PDFDocument({ autoFirstPage: false });
  const codes = [...Array.from({ length: 95 }, (_, i) => 0x20 + i), ...Array.from({ length: 96 }, (_, i) => 0xa0 + i), ...WIN_ANSI_HIGH.keys()];
  const read = (font: FontName): Metrics => {
    doc.font(BASE_FONTS[font]).fontSize(1000);
    return { widths: new Map(codes.map((c) => [c, doc.widthOfString(String.fromCodePoint(c))])) };
  };
  metrics = { regular: read('regular'), bold: read('bold') };
  return metrics;
}

/** Numbers in content streams: at most three decimals, no trailing zeros. */
const num = (v: number): string => {
  const r = Math.round(v * 1000) / 1000;
  return Object.is(r, -0) ? '0' : String(r);
};

/** WinAnsi bytes of printable text, as a PDF hex string. */
function hexString(text: string): string {
  let out = '<';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const byte = c <= 0xff ? c : (WIN_ANSI_HIGH.get(c) ?? 0x3f);
    out += (byte < 16 ? '0' : '') + byte.toString(16);
  }
  return `${out}>`;
}

export class Pdf {
  readonly #doc: PDFKit.PDFDocument;
  readonly #fonts: Record<FontName, PDFKit.PDFKitReference>;
  readonly #metrics = fontMetrics();
  #content: string[] = [];
  #height = 0;

  constructor(info: DocumentInfo) {
    this.#doc = new PDFDocument({
      autoFirstPage: false,
      margin: 0,
      compress: true,
      // No default font: pdfkit would set up Helvetica's metrics and kerning pairs for every document.
      font: '',
      info: {
        Title: info.title,
        Author: info.author,
        Subject: info.subject,
        Creator: 'ecf',
        Producer: 'ecf (pdfkit)',
        CreationDate: info.createdAt,
      },
    });
    const font = (name: FontName) => {
      const ref = this.#doc.ref({ Type: 'Font', Subtype: 'Type1', BaseFont: BASE_FONTS[name], Encoding: 'WinAnsiEncoding' });
      ref.end(undefined);
      return ref;
    };
    this.#fonts = { regular: font('regular'), bold: font('bold') };
  }

  /** Starts a page; what was drawn on the last one is written out first. */
  addPage(width: number, height: number): void {
    this.#flush();
    this.#doc.addPage({ size: [width, height], margin: 0 });
    const fonts = this.#doc.page.fonts as Record<string, PDFKit.PDFKitReference>;
    fonts.F1 = this.#fonts.regular;
    fonts.F2 = this.#fonts.bold;
    this.#height = height;
  }

  #flush(): void {
    if (this.#content.length) this.#doc.addContent(this.#content.join('\n'));
    this.#content = [];
  }

  /** Width of `text` in points; the text is made printable first, as `text()` does. */
  width(value: string, font: FontName, size: number): number {
    const widths = this.#metrics[font].widths;
    let w = 0;
    for (const ch of pdfText(value)) w += widths.get(ch.codePointAt(0)!) ?? 0;
    return (w * size) / 1000;
  }

  /** Draws one line of text with its top at `y`; returns its width. */
  text(value: string, x: number, y: number, style: TextStyle): number {
    const t = pdfText(value);
    if (!t) return 0;
    const font = style.font ?? 'regular';
    const w = this.width(t, font, style.size);
    const left = style.align === 'right' ? x - w : style.align === 'center' ? x - w / 2 : x;
    const baseline = this.#height - y - (ASCENDER * style.size) / 1000;
    const colour = style.grey ? `${num(style.grey)} g ` : '';
    // The page's coordinates are flipped (origin top left); text is set in the PDF's own, unflipped.
    this.#content.push(
      `q ${colour}1 0 0 -1 0 ${num(this.#height)} cm BT /${font === 'bold' ? 'F2' : 'F1'} ${num(style.size)} Tf ${num(left)} ${num(baseline)} Td ${hexString(t)} Tj ET Q`,
    );
    return w;
  }

  /**
   * Breaks `value` into lines no wider than `maxWidth`: at spaces, and inside
   * a word only when the word alone is too wide.
   */
  wrap(value: string, font: FontName, size: number, maxWidth: number): string[] {
    const t = pdfText(value).replace(/\s+/g, ' ').trim();
    if (!t) return [];
    if (this.width(t, font, size) <= maxWidth) return [t];
    const lines: string[] = [];
    let current = '';
    for (const word of t.split(' ')) {
      const candidate = current ? `${current} ${word}` : word;
      if (this.width(candidate, font, size) <= maxWidth) {
        current = candidate;
        continue;
      }
      if (current) lines.push(current);
      current = word;
      while (this.width(current, font, size) > maxWidth && current.length > 1) {
        let cut = current.length - 1;
        while (cut > 1 && this.width(current.slice(0, cut), font, size) > maxWidth) cut--;
        lines.push(current.slice(0, cut));
        current = current.slice(cut);
      }
    }
    if (current) lines.push(current);
    return lines;
  }

  line(x1: number, y1: number, x2: number, y2: number, options: { width?: number; dash?: number; grey?: number } = {}): void {
    const dash = options.dash ? `[${num(options.dash)} ${num(options.dash)}] 0 d ` : '';
    this.#content.push(`q ${num(options.width ?? 0.5)} w ${num(options.grey ?? 0)} G ${dash}${num(x1)} ${num(y1)} m ${num(x2)} ${num(y2)} l S Q`);
  }

  /** A rectangle, filled with a grey level and/or stroked. */
  box(x: number, y: number, w: number, h: number, options: { width?: number; fill?: number; stroke?: boolean } = {}): void {
    const r = `${num(x)} ${num(y)} ${num(w)} ${num(h)} re`;
    if (options.fill !== undefined) this.#content.push(`q ${num(options.fill)} g ${r} f Q`);
    if (options.stroke !== false) this.#content.push(`q ${num(options.width ?? 0.5)} w 0 G ${r} S Q`);
  }

  /**
   * The QR as filled rectangles, one per run of dark modules in a row, in one
   * path drawn in module units (a scale transform), so each run is four
   * small integers.
   */
  qr(matrix: QrMatrix, x: number, y: number, module: number): void {
    const { size, dark } = matrix;
    const parts: string[] = [`q 0 g ${num(module)} 0 0 ${num(module)} ${num(x)} ${num(y)} cm`];
    for (let row = 0; row < size; row++) {
      let col = 0;
      while (col < size) {
        if (!dark[row * size + col]) {
          col++;
          continue;
        }
        let end = col + 1;
        while (end < size && dark[row * size + end]) end++;
        parts.push(`${col} ${row} ${end - col} 1 re`);
        col = end;
      }
    }
    parts.push('f Q');
    this.#content.push(parts.join('\n'));
  }

  /** The finished file. pdfkit writes synchronously, so every byte is buffered once end() returns. */
  finish(): Buffer {
    this.#flush();
    this.#doc.end();
    const chunks: Buffer[] = [];
    for (let c = this.#doc.read() as Buffer | null; c !== null; c = this.#doc.read() as Buffer | null) chunks.push(c);
    const out = Buffer.concat(chunks);
    if (!out.subarray(-16).toString('latin1').includes('%%EOF')) throw new Error('the PDF writer did not finish the file');
    return out;
  }
}

export interface QrMatrix {
  readonly size: number;
  readonly version: number;
  readonly dark: Uint8Array;
}

/**
 * The QR of the timbre URL, error correction M: a standard consultatimbre
 * URL (about 190–230 bytes) needs version 10 or 11, the consumer one version
 * 7 or 8 (NOTES §17.4: version 8 cannot hold the standard URL at all). The
 * library's mix of byte and numeric segments keeps some URLs one version
 * smaller than byte mode alone would.
 */
export function qrMatrix(text: string): QrMatrix {
  const q = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return { size: q.modules.size, version: q.version, dark: q.modules.data };
}
