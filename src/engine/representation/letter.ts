import { Dec, sum } from '../money.js';
import {
  CODE_LABEL,
  PAGE_SUBTOTAL_LABELS,
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
  type Line,
  type RenderFacts,
  type Row,
} from './content.js';
import { amount } from './format.js';
import { MM, Pdf, type QrMatrix } from './kit.js';
import type { PrintedEcf, PrintedLine } from './reader.js';

/**
 * Letter (8.5 × 11 in), after DGII's full-page models (NOTES §17.10): issuer
 * top left, title and e-NCF top right, the client between rules, the item
 * table, totals boxed at the right; on every page the header, the table
 * head, and at the bottom left the QR with the security code and the
 * signature date and time under it. The QR starts 20 mm from the left and
 * bottom edges with 3 mm clear around it (NOTES §17.4). Every page but the
 * last carries its subtotals beside the QR; the last carries the totals.
 * With a Paginacion in the XML, each of its pages starts a new sheet and
 * shows the subtotals the XML gives for it.
 */

const W = 612;
const H = 792;
const LEFT = 20 * MM;
const RIGHT = W - 20 * MM;
const WIDTH = RIGHT - LEFT;
const TOP = 15 * MM;
const BOTTOM = H - 12 * MM;
const QUIET = 3 * MM;
const GREY = 0.27;
const LIGHT = 0.91;

const BODY = 8;
const LEAD = 10;
const SMALL = 7;
const SMALL_LEAD = 8.5;

/** Table columns: right edges for numbers, left edges for text. */
const COL = {
  qtyRight: LEFT + 34,
  marker: LEFT + 39,
  desc: LEFT + 48,
  unit: RIGHT - 228,
  priceRight: RIGHT - 168,
  adjRight: RIGHT - 110,
  taxRight: RIGHT - 72,
  valueRight: RIGHT,
};
const DESC_WIDTH = COL.unit - 6 - COL.desc;

interface Block {
  readonly height: number;
  draw(y: number): void;
}

interface RowBlock extends Block {
  readonly line: PrintedLine;
}

interface Page {
  readonly rows: RowBlock[];
  readonly finals: { block: Block; y: number }[];
  readonly rowYs: number[];
  readonly tableHead: boolean;
}

export function renderLetter(pdf: Pdf, p: PrintedEcf, facts: RenderFacts, qr: QrMatrix): number {
  const module = Math.max(0.5 * MM, (22 * MM) / qr.size);
  const qrSize = module * qr.size;
  const footerTop = BOTTOM - (QUIET + qrSize + QUIET + 2 * LEAD);
  const bodyBottom = footerTop - 6;

  const header = headerBlock(pdf, p);
  const bodyTop = TOP + header.height;
  const TABLE_HEAD = 16;

  const rows = p.lines.map((l) => rowBlock(pdf, p, l));
  const finals = finalBlocks(pdf, p, facts);

  // Pagination: rows first (a declared page of the XML's Paginacion starts a new sheet), then the closing blocks.
  const starts = new Set(p.pages.filter((pg, i) => i > 0 && pg.lineFrom !== null).map((pg) => pg.lineFrom!));
  const pages: Page[] = [];
  let page: Page = { rows: [], finals: [], rowYs: [], tableHead: true };
  pages.push(page);
  let y = bodyTop + TABLE_HEAD;
  for (const row of rows) {
    const forced = starts.has(row.line.number) && page.rows.length > 0;
    if (forced || (y + row.height > bodyBottom && page.rows.length > 0)) {
      page = { rows: [], finals: [], rowYs: [], tableHead: true };
      pages.push(page);
      y = bodyTop + TABLE_HEAD;
    }
    page.rows.push(row);
    page.rowYs.push(y);
    y += row.height;
  }
  y += 8;
  for (const block of finals) {
    if (y + block.height > bodyBottom && (page.rows.length > 0 || page.finals.length > 0)) {
      page = { rows: [], finals: [], rowYs: [], tableHead: false };
      pages.push(page);
      y = bodyTop + 4;
    }
    page.finals.push({ block, y });
    y += block.height + 8;
  }

  pages.forEach((pg, index) => {
    pdf.addPage(W, H);
    header.draw(TOP);
    if (pg.tableHead) tableHead(pdf, bodyTop);
    pg.rows.forEach((row, i) => row.draw(pg.rowYs[i]!));
    for (const f of pg.finals) f.block.draw(f.y);
    const last = index === pages.length - 1;
    footer(pdf, p, qr, module, footerTop, index + 1, pages.length, last ? [] : pageSubtotals(p, pg));
  });
  return pages.length;
}

/** The subtotals of a page that is not the last: the XML's for a declared page that ends here, else the sum of the page's values. */
function pageSubtotals(p: PrintedEcf, page: Page): Row[] {
  if (page.rows.length === 0) return [];
  const lastLine = page.rows[page.rows.length - 1]!.line.number;
  const declared = p.pages.find((pg) => pg.lineTo === lastLine);
  if (declared && Object.keys(declared.values).length > 0) {
    return PAGE_SUBTOTAL_LABELS.filter(([key]) => declared.values[key] !== undefined).map(([key, label]) => ({
      label,
      value: amount(declared.values[key]!),
      bold: key === 'MontoSubtotalPagina',
    }));
  }
  const total = sum(page.rows.map((r) => new Dec(r.line.amount)));
  return [{ label: 'Monto Total Página', value: amount(total.toFixed(2)), bold: true }];
}

/** Line spacing: body text and headings by their size, small print by SMALL_LEAD. */
const leadOf = (size: number) => (size >= BODY ? size + 2.5 : SMALL_LEAD);
const linesHeight = (lines: readonly { size: number }[]): number => lines.reduce((h, l) => h + leadOf(l.size), 0);

interface Styled {
  readonly text: string;
  readonly size: number;
  readonly bold?: boolean;
  readonly grey?: number;
}

function wrapLines(pdf: Pdf, lines: readonly Line[], size: number, width: number, grey?: number): Styled[] {
  return lines.flatMap((l) => pdf.wrap(l.text, l.bold ? 'bold' : 'regular', size, width).map((t) => ({ text: t, size, bold: l.bold, grey })));
}

function drawLines(pdf: Pdf, lines: readonly Styled[], x: number, y: number, align: 'left' | 'right' | 'center' = 'left'): number {
  let at = y;
  for (const l of lines) {
    pdf.text(l.text, x, at, { size: l.size, font: l.bold ? 'bold' : 'regular', align, grey: l.grey });
    at += leadOf(l.size);
  }
  return at - y;
}

/** Issuer, title box and client: the same on every page. */
function headerBlock(pdf: Pdf, p: PrintedEcf): Block {
  const leftWidth = WIDTH * 0.56;
  const boxX = LEFT + WIDTH * 0.58;
  const boxWidth = RIGHT - boxX;
  const pad = 7;

  const issuer = issuerLines(p);
  const left: Styled[] = [
    ...pdf.wrap(issuer[0]!.text, 'bold', 13, leftWidth).map((t) => ({ text: t, size: 13, bold: true })),
    ...wrapLines(pdf, issuer.slice(1), BODY + 0.5, leftWidth),
  ];
  const date: Styled = { text: `Fecha Emisión: ${p.issuer.issueDate}`, size: BODY + 0.5, bold: true };
  const leftHeight = linesHeight(left) + 4 + linesHeight([date]);

  const right: Styled[] = [
    ...pdf.wrap(title(p), 'bold', 11, boxWidth - 2 * pad).map((t) => ({ text: t, size: 11, bold: true })),
    { text: `e-NCF: ${p.encf}`, size: 10.5, bold: true },
    ...wrapLines(pdf, documentLines(p), BODY + 0.5, boxWidth - 2 * pad),
  ];
  const boxHeight = linesHeight(right) + 2 * pad - 2.5;
  const top = Math.max(leftHeight, boxHeight) + 8;

  const columnWidth = WIDTH / 2 - 8;
  const buyer = wrapLines(pdf, buyerLines(p), BODY + 0.5, columnWidth);
  const commercial = wrapLines(pdf, commercialLines(p), BODY + 0.5, columnWidth);
  const clientHeight = Math.max(linesHeight(buyer), linesHeight(commercial));
  const height = top + (clientHeight > 0 ? clientHeight + 12 : 0) + 6;

  return {
    height,
    draw(y) {
      const used = drawLines(pdf, left, LEFT, y);
      drawLines(pdf, [date], LEFT, y + used + 4);
      pdf.box(boxX, y - 2, boxWidth, boxHeight, { width: 0.8 });
      drawLines(pdf, right, boxX + pad, y - 2 + pad);
      const ruleY = y + top - 4;
      pdf.line(LEFT, ruleY, RIGHT, ruleY, { width: 0.8 });
      if (clientHeight > 0) {
        drawLines(pdf, buyer, LEFT, ruleY + 6);
        drawLines(pdf, commercial, LEFT + WIDTH / 2 + 8, ruleY + 6);
        pdf.line(LEFT, ruleY + clientHeight + 10, RIGHT, ruleY + clientHeight + 10, { width: 0.8 });
      }
    },
  };
}

function tableHead(pdf: Pdf, y: number): void {
  pdf.box(LEFT, y, WIDTH, 13, { fill: LIGHT, stroke: false });
  const s = { size: SMALL + 0.5, font: 'bold' as const };
  const ty = y + 3;
  pdf.text('Cant.', COL.qtyRight, ty, { ...s, align: 'right' });
  pdf.text('Descripción', COL.desc, ty, s);
  pdf.text('Unidad', COL.unit, ty, s);
  pdf.text('Precio', COL.priceRight, ty, { ...s, align: 'right' });
  pdf.text('Desc./Rec.', COL.adjRight, ty, { ...s, align: 'right' });
  pdf.text('ITBIS', COL.taxRight, ty, { ...s, align: 'right' });
  pdf.text('Valor', COL.valueRight, ty, { ...s, align: 'right' });
}

function rowBlock(pdf: Pdf, p: PrintedEcf, l: PrintedLine): RowBlock {
  const name = pdf.wrap(l.name, 'regular', BODY, DESC_WIDTH);
  const small = [
    ...(l.description ? pdf.wrap(l.description, 'regular', SMALL, DESC_WIDTH) : []),
    ...lineDetails(l).flatMap((d) => pdf.wrap(d, 'regular', SMALL, DESC_WIDTH)),
  ];
  const adjustments = lineAdjustments(l);
  const textHeight = Math.max(name.length * LEAD + small.length * SMALL_LEAD, adjustments.length * LEAD);
  const height = textHeight + 4;
  return {
    line: l,
    height,
    draw(y) {
      const ty = y + 2;
      pdf.text(lineQuantity(l), COL.qtyRight, ty, { size: BODY, align: 'right' });
      if (l.indicator === 4) pdf.text('E', COL.marker, ty, { size: BODY, font: 'bold' });
      name.forEach((t, i) => pdf.text(t, COL.desc, ty + i * LEAD, { size: BODY }));
      small.forEach((t, i) => pdf.text(t, COL.desc, ty + name.length * LEAD + i * SMALL_LEAD, { size: SMALL, grey: GREY }));
      const unit = lineUnit(l);
      if (unit) pdf.text(unit, COL.unit, ty, { size: BODY });
      pdf.text(amount(l.unitPrice), COL.priceRight, ty, { size: BODY, align: 'right' });
      adjustments.forEach((t, i) => pdf.text(t, COL.adjRight, ty + i * LEAD, { size: BODY, align: 'right' }));
      pdf.text(lineTax(l, p), COL.taxRight, ty, { size: BODY, align: 'right' });
      pdf.text(amount(l.amount), COL.valueRight, ty, { size: BODY, align: 'right' });
      pdf.line(LEFT, y + height, RIGHT, y + height, { width: 0.25, grey: 0.73 });
    },
  };
}

/** Label-value rows; the label column is `width` wide and wraps, the value is right-aligned at `right`. */
function rowsBlock(pdf: Pdf, heading: string | null, rows: readonly Row[], x: number, right: number, options: { boxed?: boolean; size?: number } = {}) {
  const size = options.size ?? BODY + 0.5;
  const pad = options.boxed ? 6 : 0;
  const valueWidth = Math.max(60, ...rows.map((r) => pdf.width(r.value, 'bold', size + 1)));
  const labelWidth = right - x - 2 * pad - valueWidth - 8;
  const indent = 8;
  const laid = rows.map((r) => ({
    r,
    labels: pdf.wrap(r.label, r.bold ? 'bold' : 'regular', r.bold ? size + 1 : size, labelWidth - (r.indent ? indent : 0)),
    lead: r.bold ? size + 4.5 : size + 2.5,
  }));
  const headingHeight = heading ? size + 4 : 0;
  const height = headingHeight + laid.reduce((h, l) => h + l.labels.length * l.lead, 0) + 2 * pad;
  return {
    height,
    draw(y: number) {
      if (options.boxed) pdf.box(x, y, right - x, height, { width: 0.8 });
      let at = y + pad;
      if (heading) {
        pdf.text(heading, x + pad, at, { size, font: 'bold' });
        at += headingHeight;
      }
      for (const l of laid) {
        const s = l.r.bold ? size + 1 : size;
        const font = l.r.bold ? ('bold' as const) : ('regular' as const);
        l.labels.forEach((t, i) => pdf.text(t, x + pad + (l.r.indent ? indent : 0), at + i * l.lead, { size: s, font }));
        pdf.text(l.r.value, right - pad, at, { size: s, font, align: 'right' });
        at += l.labels.length * l.lead;
      }
    },
  };
}

/** What follows the lines on the last page: totals with payment data beside them, then subtotals, shipping and notes. */
function finalBlocks(pdf: Pdf, p: PrintedEcf, facts: RenderFacts): Block[] {
  const blocks: Block[] = [];
  const totalsX = RIGHT - 235;
  const totals = rowsBlock(pdf, null, totalRows(p), totalsX, RIGHT, { boxed: true });
  const sideRight = totalsX - 14;
  const side = [
    ...(p.adjustments.length ? [rowsBlock(pdf, 'Descuentos y recargos globales', adjustmentRows(p), LEFT, sideRight)] : []),
    ...(p.foreign ? [rowsBlock(pdf, `Montos en ${p.foreign.currency}${p.foreign.rate ? ` (tasa ${p.foreign.rate})` : ''}`, foreignRows(p), LEFT, sideRight)] : []),
    ...(p.paymentForms.length ? [rowsBlock(pdf, 'Formas de pago', paymentFormRows(p), LEFT, sideRight)] : []),
  ];
  const sideHeight = side.reduce((h, b) => h + b.height + 8, 0);
  blocks.push({
    height: Math.max(totals.height, sideHeight),
    draw(y) {
      totals.draw(y);
      let at = y;
      for (const b of side) {
        b.draw(at);
        at += b.height + 8;
      }
    },
  });

  const subtotals = subtotalRows(p);
  if (subtotals.length) {
    const rows = subtotals.map((s) => s.row);
    const block = rowsBlock(pdf, 'Subtotales', rows, LEFT, RIGHT);
    const details = subtotals.map((s) => s.detail);
    // The composition of each subtotal goes in small print under the list.
    const detailLines = details.filter(Boolean).flatMap((d, i) => pdf.wrap(`${rows[i]!.label}: ${d}`, 'regular', SMALL, WIDTH));
    blocks.push({
      height: block.height + detailLines.length * SMALL_LEAD + 2,
      draw(y) {
        block.draw(y);
        detailLines.forEach((t, i) => pdf.text(t, LEFT, y + block.height + 2 + i * SMALL_LEAD, { size: SMALL, grey: GREY }));
      },
    });
  }

  const shipping = shippingItems(p);
  if (shipping.length) {
    const lines = pdf.wrap(shipping.join('   ·   '), 'regular', SMALL + 0.5, WIDTH);
    blocks.push({
      height: BODY + 4 + lines.length * (SMALL_LEAD + 0.5),
      draw(y) {
        pdf.text('Embarque y transporte', LEFT, y, { size: BODY, font: 'bold' });
        lines.forEach((t, i) => pdf.text(t, LEFT, y + BODY + 4 + i * (SMALL_LEAD + 0.5), { size: SMALL + 0.5 }));
      },
    });
  }

  const notes = wrapLines(pdf, noteLines(p, facts), BODY, WIDTH);
  if (notes.length) blocks.push({ height: linesHeight(notes), draw: (y) => void drawLines(pdf, notes, LEFT, y) });
  return blocks;
}

function footer(pdf: Pdf, p: PrintedEcf, qr: QrMatrix, module: number, top: number, page: number, pages: number, subtotals: Row[]): void {
  pdf.line(LEFT, top, RIGHT, top, { width: 0.8 });
  const qrY = top + QUIET;
  pdf.qr(qr, LEFT, qrY, module);
  const textY = qrY + qr.size * module + QUIET;
  pdf.text(`${CODE_LABEL}: ${p.securityCode}`, LEFT, textY, { size: BODY + 0.5, font: 'bold' });
  pdf.text(`${SIGNED_LABEL}: ${p.signedAt}`, LEFT, textY + LEAD, { size: BODY + 0.5 });
  if (subtotals.length) rowsBlock(pdf, null, subtotals, RIGHT - 235, RIGHT, { boxed: true, size: SMALL + 0.5 }).draw(qrY);
  pdf.text(`Página No. ${page} de ${pages}`, RIGHT, textY + LEAD, { size: BODY, align: 'right', grey: GREY });
}
