import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers.js';

/**
 * Reads a PDF back the way a person and a phone would: poppler-utils
 * (pdfinfo, pdftotext, pdftoppm) and zbar-tools (zbarimg), which `.ci/run`
 * installs. Nothing here shares code with the renderer.
 */

function saved(pdf: Buffer): string {
  const file = join(tempDir('ecf-pdf-'), 'doc.pdf');
  writeFileSync(file, pdf);
  return file;
}

export interface PdfInfo {
  readonly pages: number;
  /** Width and height of the first page, in points. */
  readonly size: readonly [number, number];
  readonly title: string;
  readonly author: string;
}

export function pdfInfo(pdf: Buffer): PdfInfo {
  const out = execFileSync('pdfinfo', [saved(pdf)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(out)?.[1]?.trim() ?? '';
  const size = /^Page size:\s*([\d.]+) x ([\d.]+) pts/m.exec(out);
  return { pages: Number(field('Pages')), size: [Number(size?.[1]), Number(size?.[2])], title: field('Title'), author: field('Author') };
}

/** The text of the whole document in physical layout, or in the order it was drawn (`raw`). */
export function pdfText(pdf: Buffer, options: { raw?: boolean } = {}): string {
  const args = [options.raw ? '-raw' : '-layout', '-enc', 'UTF-8', saved(pdf), '-'];
  return execFileSync('pdftotext', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** Each page's text, split on the form feed pdftotext writes after every page. */
export function pageTexts(pdf: Buffer): string[] {
  return pdfText(pdf).split('\f').slice(0, -1);
}

/** Renders pages to PNG with pdftoppm; returns the files in page order. */
export function renderPages(pdf: Buffer, options: { dpi?: number; first?: number; last?: number } = {}): string[] {
  const dir = tempDir('ecf-png-');
  const args = ['-r', String(options.dpi ?? 150), '-png'];
  if (options.first) args.push('-f', String(options.first));
  if (options.last) args.push('-l', String(options.last));
  execFileSync('pdftoppm', [...args, saved(pdf), join(dir, 'page')], { stdio: ['ignore', 'pipe', 'pipe'] });
  return readdirSync(dir).filter((f) => f.endsWith('.png')).sort().map((f) => join(dir, f));
}

/** The QR codes zbarimg finds in an image, as text. */
export function qrCodes(png: string): string[] {
  const r = spawnSync('zbarimg', ['--raw', '-q', '-Sdisable', '-Sqrcode.enable', png], { encoding: 'utf8' });
  // zbarimg exits 4 when it finds no symbol; anything else but 0 is a failure of the tool.
  if (r.status !== 0 && r.status !== 4) throw new Error(`zbarimg failed (${r.status}): ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

/** Collapses runs of spaces, so text laid out in columns can be matched as phrases. */
export const squeeze = (text: string): string => text.replace(/[ \t]+/g, ' ');
