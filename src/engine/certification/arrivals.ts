import type { Engine } from '../engine-types.js';
import { ValidationError } from '../errors.js';
import { PROBE_ISSUER_RNC } from './receiver-check.js';
import { recordPaso, requireCertification } from './state.js';

/**
 * Pasos 9 and 11 (CERTIFICATION.md §4.3): what the authority sent to the
 * tenant's receiver in the certification environment, and what the receiver
 * answered. The receiver already answers on its own while `ecf serve` runs;
 * this reads back what it kept. How many documents the authority sends, and
 * whether any are faulty on purpose, is not documented (§9), so a Paso is
 * recorded done as soon as something arrived and the report shows each answer.
 *
 * A refused approval (HTTP 400) is not kept by the receiver (receive.ts
 * stores only the ones it accepts), so it cannot appear here: the server's
 * log is where such a refusal shows.
 */

export interface ArrivedEcf {
  readonly receivedAt: string;
  readonly issuerRnc: string;
  readonly issuerName: string | null;
  readonly encf: string;
  readonly type: number | null;
  readonly buyerRnc: string | null;
  readonly montoTotal: string | null;
  /** The ARECF answered: received (Estado 0) or not_received (Estado 1 with a motivo). */
  readonly answer: 'received' | 'not_received';
  readonly motivo: number | null;
  readonly reason: string | null;
}

export interface ArrivedApproval {
  readonly receivedAt: string;
  readonly encf: string;
  readonly buyerRnc: string;
  readonly decision: string;
  readonly rejectionReason: string | null;
  /** What the receiver answered: every approval kept was answered HTTP 200. */
  readonly answer: 'HTTP 200';
}

export interface Arrivals {
  readonly since: string;
  readonly ecf: readonly ArrivedEcf[];
  readonly approvals: readonly ArrivedApproval[];
  readonly counts: { readonly ecf: number; readonly received: number; readonly notReceived: number; readonly approvals: number };
}

const CERT = 'cert';

/** The arrivals since `since` (default: when the certification started). */
export async function certificationArrivals(engine: Engine, tenantId: string, options: { since?: string } = {}): Promise<Arrivals> {
  const certification = await requireCertification(engine, tenantId);
  let since = certification.startedAt;
  if (options.since !== undefined) {
    const t = Date.parse(options.since);
    if (Number.isNaN(t)) throw new ValidationError([{ path: 'since', code: 'Arrivals.SinceInvalid', message: `--since ${options.since} is not a date or instant (e.g. 2026-03-10 or 2026-03-10T14:00:00Z).` }]);
    since = new Date(t).toISOString();
  }
  const rows = await engine.db
    .selectFrom('received_ecf')
    .select(['received_at', 'issuer_rnc', 'issuer_name', 'encf', 'type', 'buyer_rnc', 'monto_total', 'status', 'reason_code', 'reason'])
    .where('tenant_id', '=', tenantId)
    .where('environment', '=', CERT)
    .where('received_at', '>=', since)
    // The receiver check's own probe is not the authority.
    .where('issuer_rnc', '!=', PROBE_ISSUER_RNC)
    .orderBy('received_at')
    .orderBy('id')
    .execute();
  const approvalRows = await engine.db
    .selectFrom('inbound_approvals as a')
    .innerJoin('ecf as e', 'e.id', 'a.ecf_id')
    .select(['a.received_at', 'a.encf', 'a.buyer_rnc', 'a.decision', 'a.rejection_reason'])
    .where('a.tenant_id', '=', tenantId)
    .where('e.environment', '=', CERT)
    .where('a.received_at', '>=', since)
    .orderBy('a.received_at')
    .orderBy('a.id')
    .execute();
  const ecf: ArrivedEcf[] = rows.map((r) => ({
    receivedAt: r.received_at,
    issuerRnc: r.issuer_rnc,
    issuerName: r.issuer_name,
    encf: r.encf,
    type: r.type,
    buyerRnc: r.buyer_rnc,
    montoTotal: r.monto_total,
    answer: r.status === 'received' ? 'received' : 'not_received',
    motivo: r.reason_code,
    reason: r.reason,
  }));
  const approvals: ArrivedApproval[] = approvalRows.map((r) => ({
    receivedAt: r.received_at,
    encf: r.encf,
    buyerRnc: r.buyer_rnc,
    decision: r.decision,
    rejectionReason: r.rejection_reason,
    answer: 'HTTP 200',
  }));
  const received = ecf.filter((e) => e.answer === 'received').length;
  return { since, ecf, approvals, counts: { ecf: ecf.length, received, notReceived: ecf.length - received, approvals: approvals.length } };
}

/**
 * Records Pasos 9 and 11 from the arrivals: done once the authority sent
 * something (the portal is where it says whether it passed), in progress
 * otherwise, with the counts for the report.
 */
export async function recordArrivals(engine: Engine, tenantId: string, arrivals: Arrivals): Promise<void> {
  const { counts } = arrivals;
  // A look with a later --since that finds nothing does not undo what an earlier one found.
  const before = (await requireCertification(engine, tenantId)).pasos;
  if (counts.ecf > 0 || before[9].state !== 'done') await recordPaso(engine, tenantId, 9, {
    state: counts.ecf > 0 ? 'done' : 'in_progress',
    note:
      counts.ecf > 0
        ? `${counts.ecf} e-CF arrived from the authority: ${counts.received} answered received, ${counts.notReceived} not received; check the portal's verdict.`
        : 'No e-CF has arrived yet: keep `ecf serve` running and press "ENVIAR PRUEBA DE COMPROBANTES" (Paso 8).',
    detail: { since: arrivals.since, ecf: counts.ecf, received: counts.received, notReceived: counts.notReceived, encfs: arrivals.ecf.map((e) => e.encf) },
  });
  if (counts.approvals > 0 || before[11].state !== 'done') await recordPaso(engine, tenantId, 11, {
    state: counts.approvals > 0 ? 'done' : 'in_progress',
    note:
      counts.approvals > 0
        ? `${counts.approvals} commercial approval(s) arrived and were answered HTTP 200; check the portal's verdict.`
        : 'No commercial approval has arrived yet: press "ENVIAR PRUEBA DE APROBACIONES COMERCIALES" (Paso 10) while `ecf serve` runs.',
    detail: { since: arrivals.since, approvals: counts.approvals, encfs: arrivals.approvals.map((a) => a.encf) },
  });
}
