import { Dec, ZERO } from '../../money.js';
import { ECF_CODES } from '../codes.js';
import type { NormalizedLine } from '../model.js';
import type { ComputedDocument } from '../totals.js';
import type { SectionNotices } from './notices.js';
import { decimal, obj, type Obj } from './readers.js';

/** Tolerance (cuadratura, NOTES §12.3): declared amounts against the computed ones. Warnings only, never errors. */

/** How far a line's amount may be from the computed one (NOTES §12.3); a document's totals may be off by this once per line. */
export const LINE_TOLERANCE = new Dec(1);

const DECLARED_TOTALS: Record<string, (c: ComputedDocument) => Dec | undefined> = {
  montoGravadoTotal: (c) => c.totals.montoGravadoTotal,
  montoExento: (c) => c.totals.montoExento,
  totalItbis: (c) => c.totals.totalItbis,
  montoImpuestoAdicional: (c) => c.totals.montoImpuestoAdicional,
  montoTotal: (c) => c.totals.montoTotal,
};

export function toleranceWarnings(n: SectionNotices, p: Obj, lines: readonly NormalizedLine[], computed: ComputedDocument): void {
  lines.forEach((l, i) => {
    const c = computed.lines[i];
    if (!l.declaredAmount || !c) return;
    const diff = l.declaredAmount.minus(c.amount).abs();
    if (diff.gt(LINE_TOLERANCE)) {
      n.warning(
        `lines[${i}].declaredAmount`,
        ECF_CODES.ToleranceExceeded,
        `lines[${i}].declaredAmount ${l.declaredAmount.toFixed(2)} differs from the computed MontoItem ${c.amount.toFixed(2)} by ${diff.toFixed(2)}, more than the ${LINE_TOLERANCE.toFixed(2)} a line allows`,
      );
    }
  });
  const declared = obj(p.declaredTotals);
  if (!declared) return;
  const allowance = LINE_TOLERANCE.times(lines.length);
  for (const [key, pick] of Object.entries(DECLARED_TOTALS)) {
    const d = decimal(declared[key]);
    if (d === undefined) continue;
    const value = pick(computed) ?? ZERO;
    const diff = d.minus(value).abs();
    if (diff.gt(allowance)) {
      n.warning(
        `declaredTotals.${key}`,
        ECF_CODES.ToleranceExceeded,
        `declaredTotals.${key} ${d.toFixed(2)} differs from the computed ${value.toFixed(2)} by ${diff.toFixed(2)}, more than the ${allowance.toFixed(2)} allowed for ${lines.length} line${lines.length === 1 ? '' : 's'}`,
      );
    }
  }
}
