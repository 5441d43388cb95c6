import {
  CODE_LABEL,
  SIGNED_LABEL,
  adjustmentRows,
  buyerLines,
  commercialLines,
  documentLines,
  foreignRows,
  issuerLines,
  lineAdjustments,
  lineDetails,
  lineQuantity,
  lineTax,
  lineUnit,
  noteLines,
  paymentFormRows,
  shippingItems,
  subtotalRows,
  title,
  totalRows,
  type RenderFacts,
  type Row,
} from './content.js';
import { amount } from './format.js';
import { MM, Pdf, type QrMatrix } from './kit.js';
import type { PrintedEcf, PrintedLine } from './reader.js';

/**
 * Roll paper (80 mm, and 58 mm), after DGII's "papel continuo" model
 * (NOTES §17.10): one column, top to bottom: issuer, the title and e-NCF
 * between rules, dates and client, the items on two lines each (name; then
 * quantity × price, ITBIS and value), totals, and the QR centred at the end
 * with the security code and the signature date and time under it. The page
 * is as long as its content. A roll has no pages, so the XML's Paginacion
 * does not split it; a document longer than a PDF page may be (200 in)
 * continues on a next page that starts with the e-NCF.
 */

export interface RollPaper {
  /** Paper width. */
  readonly width: number;
  /** Unprintable strip on each side (printers print about 72 of 80 mm and 48 of 58 mm). */
  readonly margin: number;
  readonly body: number;
  readonly small: number;
  readonly title: number;
}

export const ROLL_80: RollPaper = { width: 80 * MM, margin: 4 * MM, body: 7.5, small: 6.5, title: 9 };
export const ROLL_58: RollPaper = { width: 58 * MM, margin: 5 * MM, body: 6.5, small: 5.8, title: 8 };

/** The longest page PDF viewers accept (14,400 pt, 200 in). */
const MAX_PAGE = 14_400;
const TOP = 5 * MM;
const BOTTOM = 8 * MM;
const QUIET = 3 * MM;
const GREY = 0.27;

interface Item {
  readonly height: number;
  draw(y: number): void;
}

export function renderRoll(pdf: Pdf, p: PrintedEcf, facts: RenderFacts, qr: QrMatrix, paper: RollPaper): number {
  const left = paper.margin;
  const right = paper.width - paper.margin;
  const width = right - left;
  const centre = paper.width / 2;
  const lead = (size: number) => size * 1.3;
  const items: Item[] = [];

  const text = (value: string, size: number, options: { bold?: boolean; align?: 'left' | 'center' | 'right'; grey?: number } = {}) => {
    const lines = pdf.wrap(value, options.bold ? 'bold' : 'regular', size, width);
    const x = options.align === 'center' ? centre : options.align === 'right' ? right : left;
    items.push({
      height: lines.length * lead(size),
      draw: (y) => lines.forEach((t, i) => pdf.text(t, x, y + i * lead(size), { size, font: options.bold ? 'bold' : 'regular', align: options.align, grey: options.grey })),
    });
  };
  const gap = (h: number) => items.push({ height: h, draw: () => {} });
  const rule = (dash = true) => items.push({ height: 6, draw: (y) => pdf.line(left, y + 3, right, y + 3, { width: 0.6, dash: dash ? 1.5 : undefined }) });
  const rows = (list: readonly Row[], size = paper.body) => {
    for (const r of list) {
      const s = r.bold ? size + 1 : size;
      const font = r.bold ? ('bold' as const) : ('regular' as const);
      const valueWidth = pdf.width(r.value, font, s);
      const indent = r.indent ? 6 : 0;
      const labels = pdf.wrap(r.label, font, s, width - valueWidth - 6 - indent);
      items.push({
        height: labels.length * lead(s),
        draw: (y) => {
          labels.forEach((t, i) => pdf.text(t, left + indent, y + i * lead(s), { size: s, font }));
          pdf.text(r.value, right, y, { size: s, font, align: 'right' });
        },
      });
    }
  };

  // Issuer, centred.
  for (const l of issuerLines(p)) text(l.text, l.bold ? paper.title : paper.body, { bold: l.bold, align: 'center' });
  rule();
  text(title(p), paper.title, { bold: true, align: 'center' });
  text(`e-NCF: ${p.encf}`, paper.body + 1, { bold: true, align: 'center' });
  for (const l of documentLines(p)) text(l.text, paper.body, { bold: l.bold, align: 'center' });
  rule();
  text(`Fecha Emisión: ${p.issuer.issueDate}`, paper.body, { bold: true });
  for (const l of [...buyerLines(p), ...commercialLines(p)]) text(l.text, paper.body);
  rule();

  // Items: the heading and each item on two lines.
  const head = paper.small + 0.5;
  items.push({
    height: 2 * lead(head),
    draw: (y) => {
      pdf.text('Descripción', left, y, { size: head, font: 'bold' });
      pdf.text('Cant. Unidad x Precio', left + 4, y + lead(head), { size: head, font: 'bold' });
      pdf.text('ITBIS', right - 0.3 * width, y + lead(head), { size: head, font: 'bold', align: 'right' });
      pdf.text('Valor', right, y + lead(head), { size: head, font: 'bold', align: 'right' });
    },
  });
  for (const l of p.lines) items.push(itemBlock(pdf, p, l, paper, left, right));
  rule();

  rows(totalRows(p), paper.body);
  if (p.foreign) {
    gap(3);
    text(`Montos en ${p.foreign.currency}${p.foreign.rate ? ` (tasa ${p.foreign.rate})` : ''}`, paper.body, { bold: true });
    rows(foreignRows(p));
  }
  if (p.adjustments.length) {
    gap(3);
    text('Descuentos y recargos globales', paper.body, { bold: true });
    rows(adjustmentRows(p), paper.small);
  }
  if (p.paymentForms.length) {
    gap(3);
    text('Formas de pago', paper.body, { bold: true });
    rows(paymentFormRows(p), paper.small);
  }
  const subtotals = subtotalRows(p);
  if (subtotals.length) {
    gap(3);
    text('Subtotales', paper.body, { bold: true });
    for (const s of subtotals) {
      rows([s.row], paper.small);
      if (s.detail) text(s.detail, paper.small - 0.5, { grey: GREY });
    }
  }
  const shipping = shippingItems(p);
  if (shipping.length) {
    gap(3);
    text('Embarque y transporte', paper.body, { bold: true });
    for (const s of shipping) text(s, paper.small);
  }
  const notes = noteLines(p, facts);
  if (notes.length) {
    gap(3);
    for (const n of notes) text(n.text, paper.small + 0.3, { bold: n.bold });
  }
  rule();

  // The verification block, centred (NOTES §17.4: bottom centre on handheld devices and rolls).
  const module = Math.max(0.5 * MM, (22 * MM) / qr.size);
  const qrSize = module * qr.size;
  items.push({ height: QUIET + qrSize + QUIET, draw: (y) => pdf.qr(qr, centre - qrSize / 2, y + QUIET, module) });
  text(`${CODE_LABEL}: ${p.securityCode}`, paper.body, { bold: true, align: 'center' });
  text(`${SIGNED_LABEL}: ${p.signedAt}`, paper.body, { align: 'center' });

  // Pages: one, unless the content is longer than a PDF page may be.
  const continuation = lead(paper.body) + 6;
  const pages: { items: Item[]; height: number }[] = [{ items: [], height: TOP }];
  for (const item of items) {
    let page = pages[pages.length - 1]!;
    if (page.height + item.height + BOTTOM > MAX_PAGE && page.items.length > 0) {
      page = { items: [], height: TOP + continuation };
      pages.push(page);
    }
    page.items.push(item);
    page.height += item.height;
  }
  pages.forEach((page, i) => {
    pdf.addPage(paper.width, Math.min(MAX_PAGE, page.height + BOTTOM));
    let y = TOP;
    if (i > 0) {
      pdf.text(`e-NCF ${p.encf} (continuación, página ${i + 1} de ${pages.length})`, left, y, { size: paper.small, grey: GREY });
      y += continuation;
    }
    for (const item of page.items) {
      item.draw(y);
      y += item.height;
    }
  });
  return pages.length;
}

function itemBlock(pdf: Pdf, p: PrintedEcf, l: PrintedLine, paper: RollPaper, left: number, right: number): Item {
  const width = right - left;
  const lead = (size: number) => size * 1.3;
  const marker = l.indicator === 4 ? 'E ' : '';
  const name = pdf.wrap(`${marker}${l.name}`, 'regular', paper.body, width);
  const small = [
    ...(l.description ? pdf.wrap(l.description, 'regular', paper.small, width) : []),
    ...lineDetails(l).flatMap((d) => pdf.wrap(d, 'regular', paper.small, width)),
  ];
  const unit = lineUnit(l);
  const priced = `${lineQuantity(l)}${unit ? ` ${unit}` : ''} x ${amount(l.unitPrice)}`;
  const adjustments = lineAdjustments(l);
  const height = name.length * lead(paper.body) + small.length * lead(paper.small) + lead(paper.body) * (1 + (adjustments.length ? 1 : 0)) + 1.5;
  return {
    height,
    draw(y) {
      let at = y;
      name.forEach((t, i) => pdf.text(t, left, at + i * lead(paper.body), { size: paper.body }));
      at += name.length * lead(paper.body);
      small.forEach((t, i) => pdf.text(t, left, at + i * lead(paper.small), { size: paper.small, grey: GREY }));
      at += small.length * lead(paper.small);
      pdf.text(priced, left + 4, at, { size: paper.body });
      pdf.text(lineTax(l, p), right - 0.3 * width, at, { size: paper.body, align: 'right' });
      pdf.text(amount(l.amount), right, at, { size: paper.body, align: 'right' });
      if (adjustments.length) {
        at += lead(paper.body);
        pdf.text(`Desc./Rec.: ${adjustments.join('  ')}`, left + 4, at, { size: paper.small, grey: GREY });
      }
    },
  };
}
