import { Type, type Static } from '@sinclair/typebox';
import { dominicanDate } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { money } from '../money.js';
import { getEmitterProfile } from '../tenants/emitter-profile.js';
import { takesRfce } from './rfce-xml.js';
import type { Totals } from './totals.js';
import { TYPE_NAMES } from './types.js';
import { prepareDocument } from './prepare.js';
import { readDocumentSettings } from './settings.js';

const NoticeSchema = Type.Object({
  path: Type.String({ description: 'The field, e.g. lines[2].unitPrice; (body) for the whole payload' }),
  code: Type.String({ description: 'Stable rule code, e.g. Ecf.FieldRequired or StringPattern' }),
  message: Type.String(),
});

const TOTAL_KEYS = [
  'montoGravadoTotal', 'montoGravadoI1', 'montoGravadoI2', 'montoGravadoI3', 'montoExento', 'totalItbis', 'totalItbis1',
  'totalItbis2', 'totalItbis3', 'montoImpuestoAdicional', 'montoTotal', 'montoNoFacturable', 'montoPeriodo', 'valorPagar',
  'totalItbisRetenido', 'totalIsrRetencion',
] as const satisfies readonly (keyof Totals)[];

export const ValidationResult = Type.Object({
  valid: Type.Boolean({ description: 'true when the e-CF could be issued as it is' }),
  errors: Type.Array(NoticeSchema, { description: 'Every problem, not only the first' }),
  warnings: Type.Array(NoticeSchema, { description: 'Notices that do not prevent issuing (tolerance differences)' }),
  preview: Type.Optional(
    Type.Object(
      {
        type: Type.Integer(),
        typeName: Type.String(),
        encf: Type.String({ description: 'A sample e-NCF with sequence 0, never a real one' }),
        issueDate: Type.String({ format: 'date' }),
        submitsRfce: Type.Boolean({ description: 'type 32 under DOP 250,000: a signed summary (RFCE) goes to the authority' }),
        totals: Type.Object(Object.fromEntries(TOTAL_KEYS.map((k) => [k, Type.Optional(Type.String())])), {
          description: 'Computed totals as the XML will carry them (two decimals); absent groups are left out',
        }),
        lines: Type.Array(
          Type.Object({
            number: Type.Integer(),
            billingIndicator: Type.Integer({ description: 'IndicadorFacturacion: 0 not invoiceable, 1 ITBIS 18 %, 2 16 %, 3 0 %, 4 exempt' }),
            amount: Type.String({ description: 'MontoItem' }),
          }),
        ),
        additionalTaxes: Type.Array(Type.Object({ code: Type.String(), amount: Type.String() })),
      },
      { description: 'Present only when valid' },
    ),
  ),
});
export type ValidationResult = Static<typeof ValidationResult>;


/**
 * POST /ecf/validate: the same matrix and totals as issuing, with nothing
 * assigned, signed or stored. A missing emitter profile is the one error
 * raised rather than reported (contract, Errors rule 4).
 */
export async function dryRunIssue(engine: Engine, tenantId: string, payload: unknown): Promise<ValidationResult> {
  await getEmitterProfile(engine, tenantId);
  const { sequenceMode } = await readDocumentSettings(engine, tenantId);
  const outcome = prepareDocument(payload, { sequenceMode, today: dominicanDate(engine.clock.now()) });
  if (!outcome.document) return { valid: false, errors: outcome.errors, warnings: outcome.warnings };
  const doc = outcome.document;
  const computed = doc.computed;
  const totals: Record<string, string> = {};
  for (const k of TOTAL_KEYS) {
    const v = computed.totals[k];
    if (v !== undefined) totals[k] = money(v);
  }
  return {
    valid: true,
    errors: [],
    warnings: outcome.warnings,
    preview: {
      type: doc.type,
      typeName: TYPE_NAMES[doc.type],
      encf: `E${doc.type}0000000000`,
      issueDate: doc.issueDate,
      submitsRfce: takesRfce(doc.type, computed.totals),
      totals,
      lines: computed.lines.map((l, i) => ({ number: i + 1, billingIndicator: l.indicator, amount: money(l.amount) })),
      additionalTaxes: computed.totals.impuestosAdicionales.map((t) => ({ code: t.code, amount: money(t.especifico.plus(t.advalorem).plus(t.otros)) })),
    },
  };
}
