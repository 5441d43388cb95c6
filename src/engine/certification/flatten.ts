import type { Element } from '@xmldom/xmldom';
import { EngineError } from '../errors.js';
import { DSIG, elementChildren, parseXml } from '../signing/verify.js';
import { columnForPath, kindOfType, type WorkbookKind } from './columns.js';

/**
 * A document back into the row it was built from: column → text, the way the
 * authority compares a certification case with its data set (value by
 * value, as text). Keys are the trimmed headers in DGII's spelling
 * (`NumeroContenedor`, `MontosubRecargo[1][1]`, `ENCF`), which is what
 * columns.comparableCells() makes of a workbook row, so the two compare
 * with ===.
 *
 * What the applicant adds is kept apart: FechaHoraFirma, the RFCE's
 * CodigoSeguridadeCF (both in `added`), and the Signature (dropped).
 * Elements the workbook has no column for are listed in `unmapped` as
 * paths; a document built from a row has none.
 */

export interface FlattenedDocument {
  readonly kind: WorkbookKind;
  readonly cells: Record<string, string>;
  readonly added: { FechaHoraFirma?: string; CodigoSeguridadeCF?: string };
  /** XPath-like paths (1-based positions) of elements no column holds. */
  readonly unmapped: string[];
}

const ADDED = new Set(['FechaHoraFirma', 'CodigoSeguridadeCF']);

const unreadable = (message: string): EngineError => new EngineError('validation', 'Certification.DocumentUnreadable', message);

function kindOf(root: Element): WorkbookKind {
  const name = root.localName ?? root.nodeName;
  if (name === 'RFCE') return 'rfce';
  if (name === 'ACECF') return 'acecf';
  if (name === 'ECF') {
    const encabezado = elementChildren(root).find((e) => e.localName === 'Encabezado');
    const idDoc = encabezado && elementChildren(encabezado).find((e) => e.localName === 'IdDoc');
    const tipo = idDoc && elementChildren(idDoc).find((e) => e.localName === 'TipoeCF');
    const text = tipo?.textContent ?? '';
    const kind = kindOfType(text);
    if (!kind) throw unreadable(`The e-CF's TipoeCF is "${text}", not one of the certification types (31–47)`);
    return kind;
  }
  throw unreadable(`The root element is ${name}; a certification case is an ECF, RFCE or ACECF`);
}

/** `kind` is read from the document (root, TipoeCF) unless given. */
export function flattenDocument(xml: string, kind?: WorkbookKind): FlattenedDocument {
  const parsed = parseXml(xml);
  if (!parsed.ok) throw unreadable(`The document cannot be read: ${parsed.reason}`);
  kind ??= kindOf(parsed.root);
  const cells: Record<string, string> = {};
  const added: FlattenedDocument['added'] = {};
  const unmapped: string[] = [];

  const walk = (el: Element, path: { name: string; position: number }[]) => {
    const seen = new Map<string, number>();
    for (const child of elementChildren(el)) {
      const name = child.localName ?? child.nodeName;
      const position = (seen.get(name) ?? 0) + 1;
      seen.set(name, position);
      if (path.length === 0 && name === 'Signature' && child.namespaceURI === DSIG) continue;
      const here = [...path, { name, position }];
      const children = elementChildren(child);
      if (children.length > 0) {
        walk(child, here);
        continue;
      }
      const text = child.textContent ?? '';
      if (ADDED.has(name) && (path.length === 0 || (kind === 'rfce' && path.length === 1 && path[0]!.name === 'Encabezado'))) {
        added[name as keyof FlattenedDocument['added']] = text;
        continue;
      }
      const column = columnForPath(kind, here);
      const where = [parsed.root.nodeName, ...here.map((s) => (s.position > 1 ? `${s.name}[${s.position}]` : s.name))].join('/');
      // An empty container (the RFCE's Comprador of an anonymous buyer) holds no value.
      if (column === null && text.trim() === '') continue;
      if (column === null || column in cells) unmapped.push(where);
      else cells[column] = text;
    }
  };
  walk(parsed.root, []);
  return { kind, cells, added, unmapped };
}

/**
 * column → text of a signed (or unsigned) document, without FechaHoraFirma,
 * CodigoSeguridadeCF and the Signature. Elements with no column appear under
 * their path (starting with the root name and a slash), which no header
 * has, so a comparison with the row reports them.
 */
export function flatten(xml: string, kind?: WorkbookKind): Record<string, string> {
  const doc = flattenDocument(xml, kind);
  const out = { ...doc.cells };
  for (const path of doc.unmapped) out[`/${path}`] = '';
  return out;
}
