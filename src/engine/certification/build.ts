import type { SigningKey } from '../signing/xmldsig.js';
import { CaseRefused, buildCase } from './case-document.js';
import type { WorkbookKind } from './columns.js';

/** Building a stored case (import's dry run and the run's prepare step): its problems carry its sheet and row. */

export interface CaseProblem {
  readonly sheet: string;
  readonly row: number | null;
  readonly column?: string;
  readonly message: string;
}

export class CaseProblemError extends Error {
  readonly problems: readonly CaseProblem[];
  constructor(problems: readonly CaseProblem[]) {
    super(problems.map((p) => `${p.sheet} row ${p.row}: ${p.message}`).join(' '));
    this.name = 'CaseProblemError';
    this.problems = problems;
  }
}

export function buildCaseDocument(
  c: { readonly kind: string; readonly cells: Readonly<Record<string, string>>; readonly sheet: string; readonly row: number },
  key: SigningKey,
  signedAt: Date,
  securityCode?: string,
): { xml: string; securityCode: string } {
  try {
    const built = buildCase({ kind: c.kind as WorkbookKind, cells: c.cells, key, signedAt, ...(securityCode !== undefined && { securityCode }), where: `${c.sheet} row ${c.row}` });
    return { xml: built.xml, securityCode: built.securityCode };
  } catch (e) {
    if (e instanceof CaseRefused) throw new CaseProblemError(e.problems.map((p) => ({ sheet: c.sheet, row: c.row, ...(p.column && { column: p.column }), message: p.message })));
    throw e;
  }
}
