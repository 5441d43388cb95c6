import { KEEP_EMPTY, type XmlData } from '../xml/canonical.js';
import { SCHEMA_TREES, type DocumentKind, type SchemaNode } from '../xml/schema-trees.generated.js';
import { describeKind, resolveColumn, type PathStep, type WorkbookKind } from './columns.js';

/**
 * A workbook row → the element data of its document, verbatim
 * (CERTIFICATION.md §2.4): element names from the columns, values exactly as
 * written, nothing recomputed, formatted or defaulted. `#e` and empty cells
 * give no element. The one structural addition is an empty element the
 * schema demands although every child is optional (the Comprador of a type
 * 32 or RFCE with an anonymous buyer); it carries no value, so nothing the
 * authority compares changes.
 *
 * A cell that cannot go into the document is a problem, never skipped
 * silently: a column the kind's schema does not have (a value in
 * IndicadorNotaCredito on a 31, an unknown header), a column with no
 * element at all (SubtotalImpuestoAdicionalPaginaTabla), an index past the
 * schema's maximum, a gap in a numbered group (item 3 filled, item 2 not:
 * the XML cannot keep that numbering), two headers naming one element, or a
 * value for what the applicant adds (FechaHoraFirma).
 */

export interface RowProblem {
  /** The header as written, when one cell is at fault. */
  readonly column?: string;
  readonly message: string;
}

export interface RowData {
  readonly data: XmlData;
  readonly problems: RowProblem[];
}

/** The cell means "no value" (DGII writes `#e` in every unused cell). */
export const isUnused = (value: string | undefined | null): boolean => value === undefined || value === null || value === '' || value === '#e';

/** Elements the applicant adds when signing; a workbook value for them is refused. */
const ADDED_AT_SIGNING = new Set(['FechaHoraFirma']);

type Slot = XmlData | (string | XmlData | undefined)[];

export function rowData(kind: WorkbookKind, cells: Readonly<Record<string, string>>): RowData {
  const data: XmlData = {};
  const problems: RowProblem[] = [];
  const taken = new Map<string, string>();
  for (const [header, value] of Object.entries(cells)) {
    if (isUnused(value)) continue;
    const target = resolveColumn(kind, header);
    if (target.type === 'case-id') continue;
    if (target.type !== 'element') {
      problems.push({ column: header, message: `Column "${header}" (value "${value}") cannot be sent: ${target.reason}.` });
      continue;
    }
    const leaf = target.path[target.path.length - 1]!.name;
    if (ADDED_AT_SIGNING.has(leaf) && target.path.length === 1) {
      problems.push({ column: header, message: `Column "${header}": ${leaf} is added when the case is signed, not taken from the workbook.` });
      continue;
    }
    const before = taken.get(target.xpath);
    if (before !== undefined) {
      problems.push({ column: header, message: `Columns "${before}" and "${header}" both name ${target.xpath}.` });
      continue;
    }
    taken.set(target.xpath, header);
    put(data, target.path, value);
  }
  problems.push(...gaps(data, kind));
  fillRequiredEmpty(data, SCHEMA_TREES[kind as DocumentKind].children);
  return { data, problems };
}

/** The ACECF of a Paso 3 row, exactly as given (FechaHoraAprobacionComercial included). */
export function approvalData(cells: Readonly<Record<string, string>>): RowData {
  return rowData('acecf', cells);
}

function put(data: XmlData, path: readonly PathStep[], value: string): void {
  let here: XmlData = data;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const last = i === path.length - 1;
    if (step.repeated) {
      const list = ((here[step.name] as Slot | undefined) ?? (here[step.name] = [])) as (string | XmlData | undefined)[];
      const at = step.index! - 1;
      if (last) list[at] = value;
      else here = (list[at] ??= {}) as XmlData;
    } else if (last) {
      here[step.name] = value;
    } else {
      here = ((here[step.name] as XmlData | undefined) ?? (here[step.name] = {})) as XmlData;
    }
  }
}

/** Numbered groups with a hole: the serializer would close it up and renumber what follows. */
function gaps(data: XmlData, kind: WorkbookKind, where = ''): RowProblem[] {
  const out: RowProblem[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (Array.isArray(value)) {
      const firstHole = value.findIndex((v) => v === undefined);
      const lastFilled = value.length;
      if (firstHole >= 0 && firstHole < lastFilled) {
        out.push({
          message: `${where}${name} ${lastFilled} is filled but ${name} ${firstHole + 1} is empty: ${describeKind(kind)} numbers its ${name} entries in order, so this row cannot be written as given.`,
        });
      }
      value.forEach((v, i) => {
        if (v && typeof v === 'object') out.push(...gaps(v as XmlData, kind, `${where}${name} ${i + 1}: `));
      });
    } else if (value && typeof value === 'object') {
      out.push(...gaps(value as XmlData, kind, where));
    }
  }
  return out;
}

/** Required elements whose children are all optional: written empty when the row fills none of them. */
function fillRequiredEmpty(data: XmlData, nodes: readonly SchemaNode[]): void {
  for (const node of nodes) {
    const value = data[node.name];
    if (!node.children) continue;
    if (value === undefined) {
      if (node.min >= 1 && node.children.every((c) => c.min === 0)) data[node.name] = KEEP_EMPTY;
      continue;
    }
    if (Array.isArray(value)) {
      for (const v of value) if (v && typeof v === 'object') fillRequiredEmpty(v as XmlData, node.children);
    } else if (typeof value === 'object' && value !== KEEP_EMPTY) {
      fillRequiredEmpty(value as XmlData, node.children);
    }
  }
}
