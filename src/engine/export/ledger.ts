import { Decimal } from 'decimal.js';

/**
 * One ledger row per e-CF, its amounts read from the signed XML's header
 * (Encabezado: IdDoc, Emisor, Comprador, Totales, OtraMoneda,
 * InformacionReferencia; NOTES §3 and the e-CF XSDs). The header comes before
 * the items, so the fields are looked for there alone, once per document.
 * Sums are decimal.js, never floats.
 */

export const AMOUNT_COLUMNS = [
  'taxable18', 'taxable16', 'taxable0', 'exempt', 'itbis18', 'itbis16', 'itbis0', 'isc', 'otherTaxes', 'itbisWithheld', 'isrWithheld', 'total',
] as const;
export type AmountColumn = (typeof AMOUNT_COLUMNS)[number];

/** What the XML says; the ledger and `ecf export verify` both derive it from the document alone. */
export interface DocumentFacts {
  readonly type: string;
  readonly encf: string;
  readonly issueDate: string;
  readonly issuerRnc: string;
  readonly issuerName: string;
  readonly buyerRnc: string;
  readonly buyerName: string;
  readonly amounts: Readonly<Record<AmountColumn, string>>;
  readonly currency: string;
  readonly exchangeRate: string;
  readonly modifiesEncf: string;
}

/** What the store says about it (not in the XML). */
export interface StoreFacts {
  readonly at: string;
  readonly status: string;
  readonly verdict: string;
  readonly trackId: string;
  readonly environment: string;
}

export const LEDGER_HEADER = [
  'eNCF', 'type', 'issueDate', 'issuedOrReceivedAt', 'counterpartRnc', 'counterpartName',
  'taxable18', 'taxable16', 'taxable0', 'exempt', 'itbis18', 'itbis16', 'itbis0', 'isc', 'otherTaxes', 'itbisWithheld', 'isrWithheld', 'total',
  'currency', 'exchangeRate', 'status', 'verdict', 'trackId', 'modifiesEncf', 'environment',
] as const;

/** The columns `ecf export verify` recomputes from the XML (the others come from the store). */
export const XML_COLUMNS = new Set<string>(['eNCF', 'type', 'issueDate', 'counterpartRnc', 'counterpartName', ...AMOUNT_COLUMNS, 'currency', 'exchangeRate', 'modifiesEncf']);

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (s: string) =>
  s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)) : ENTITIES[e]!);

const section = (xml: string, name: string): string => {
  const start = xml.indexOf(`<${name}>`);
  if (start < 0) return '';
  const end = xml.indexOf(`</${name}>`, start);
  return end < 0 ? '' : xml.slice(start, end);
};

/**
 * A section's text found in the bytes and decoded alone: the whole document
 * as a string (most of it items and signature) was most of what an export
 * allocated per document. Tags are ASCII, so the byte offsets are the
 * string's.
 */
const sectionOf = (bytes: Buffer, name: string): string => {
  const start = bytes.indexOf(`<${name}>`);
  if (start < 0) return '';
  const end = bytes.indexOf(`</${name}>`, start);
  return end < 0 ? '' : bytes.toString('utf8', start, end);
};

/** A field's text, whitespace runs made one space: a ledger cell is one line. */
const field = (xml: string, name: string): string => {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return m ? unescape(m[1]!).replace(/\s+/g, ' ').trim() : '';
};

const all = (xml: string, name: string): string[] => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]!.trim());

const sum = (values: readonly string[]): Decimal => values.reduce((s, v) => (v === '' ? s : s.plus(new Decimal(v))), new Decimal(0));
const amount = (v: string): string => (v === '' ? '0.00' : new Decimal(v).toFixed(2));

/** dd-MM-yyyy → yyyy-MM-dd (as the rest of the product writes dates); anything else as written. */
const isoDate = (d: string): string => (/^\d{2}-\d{2}-\d{4}$/.test(d) ? `${d.slice(6)}-${d.slice(3, 5)}-${d.slice(0, 2)}` : d);

/** The ledger facts of a signed e-CF (root ECF) or RFCE; a document that is not one gives empty fields, never an error. */
export function documentFacts(bytes: Buffer): DocumentFacts {
  const header = sectionOf(bytes, 'Encabezado');
  const totals = section(header, 'Totales');
  const other = section(header, 'OtraMoneda');
  const reference = sectionOf(bytes, 'InformacionReferencia');
  const isc = sum([...all(totals, 'MontoImpuestoSelectivoConsumoEspecifico'), ...all(totals, 'MontoImpuestoSelectivoConsumoAdvalorem')]);
  return {
    type: field(section(header, 'IdDoc'), 'TipoeCF'),
    encf: field(section(header, 'IdDoc'), 'eNCF'),
    issueDate: isoDate(field(section(header, 'Emisor'), 'FechaEmision')),
    issuerRnc: field(section(header, 'Emisor'), 'RNCEmisor'),
    issuerName: field(section(header, 'Emisor'), 'RazonSocialEmisor'),
    buyerRnc: field(section(header, 'Comprador'), 'RNCComprador'),
    buyerName: field(section(header, 'Comprador'), 'RazonSocialComprador'),
    amounts: {
      taxable18: amount(field(totals, 'MontoGravadoI1')),
      taxable16: amount(field(totals, 'MontoGravadoI2')),
      taxable0: amount(field(totals, 'MontoGravadoI3')),
      exempt: amount(field(totals, 'MontoExento')),
      itbis18: amount(field(totals, 'TotalITBIS1')),
      itbis16: amount(field(totals, 'TotalITBIS2')),
      itbis0: amount(field(totals, 'TotalITBIS3')),
      isc: isc.toFixed(2),
      otherTaxes: sum(all(totals, 'OtrosImpuestosAdicionales')).toFixed(2),
      itbisWithheld: amount(field(totals, 'TotalITBISRetenido')),
      isrWithheld: amount(field(totals, 'TotalISRRetencion')),
      total: amount(field(totals, 'MontoTotal')),
    },
    currency: other ? field(other, 'TipoMoneda') : 'DOP',
    exchangeRate: other ? field(other, 'TipoCambio') : '',
    modifiesEncf: field(reference, 'NCFModificado'),
  };
}

/** The ledger row: issued e-CF name the buyer, received ones the issuer. */
export function ledgerRow(facts: DocumentFacts, side: 'issued' | 'received', store: StoreFacts): Record<(typeof LEDGER_HEADER)[number], string> {
  return {
    eNCF: facts.encf,
    type: facts.type,
    issueDate: facts.issueDate,
    issuedOrReceivedAt: store.at,
    counterpartRnc: side === 'issued' ? facts.buyerRnc : facts.issuerRnc,
    counterpartName: side === 'issued' ? facts.buyerName : facts.issuerName,
    ...facts.amounts,
    currency: facts.currency,
    exchangeRate: facts.exchangeRate,
    status: store.status,
    verdict: store.verdict,
    trackId: store.trackId,
    modifiesEncf: facts.modifiesEncf,
    environment: store.environment,
  };
}

/** Quoted where needed; a cell a spreadsheet would run as a formula is written as text (a leading apostrophe). */
const csvCell = (v: string): string => {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return safe !== v || /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export const csvLine = (cells: readonly string[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** Splits one CSV line as csvLine writes it (quoted cells with doubled quotes). */
export function parseCsvLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let v = '';
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') { v += '"'; i += 2; } else if (line[i] === '"') { i++; break; } else v += line[i++];
      }
      out.push(v);
      i++;
    } else {
      const next = line.indexOf(',', i);
      const end = next < 0 ? line.length : next;
      out.push(line.slice(i, end));
      i = end + 1;
    }
    if (i > line.length) break;
  }
  return out;
}

/** Column sums of a sheet and per-type counts and totals, kept as rows go by. */
export class Totals {
  readonly columns = new Map<AmountColumn, Decimal>(AMOUNT_COLUMNS.map((c) => [c, new Decimal(0)]));
  readonly byType = new Map<string, { count: number; total: Decimal; itbis: Decimal }>();
  rows = 0;
  add(facts: DocumentFacts): void {
    this.rows++;
    for (const c of AMOUNT_COLUMNS) this.columns.set(c, this.columns.get(c)!.plus(facts.amounts[c]));
    const t = this.byType.get(facts.type) ?? { count: 0, total: new Decimal(0), itbis: new Decimal(0) };
    t.count++;
    t.total = t.total.plus(facts.amounts.total);
    t.itbis = t.itbis.plus(facts.amounts.itbis18).plus(facts.amounts.itbis16).plus(facts.amounts.itbis0);
    this.byType.set(facts.type, t);
  }
}
