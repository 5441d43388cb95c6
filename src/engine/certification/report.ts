import type { Engine } from '../engine-types.js';
import { loadCases, portalCounts, type CaseRow, type PortalCounts } from './cases.js';
import { PASOS, type PasoNumber } from './pasos.js';
import { requireCertification, type PasoState } from './state.js';

/**
 * `ecf certify status`: every Paso, done or pending, what was sent and the
 * verdicts, and the next thing the person has to do.
 */

export interface PasoReport {
  readonly paso: PasoNumber;
  readonly title: string;
  readonly state: PasoState;
  readonly at: string | null;
  readonly note: string | null;
  readonly appliance: string | null;
  readonly person: string | null;
  readonly command: string | null;
  readonly detail: Record<string, unknown> | null;
  /** Done as far as the appliance can see; the portal's own counter or verdict is the word that counts. */
  readonly confirmInPortal: boolean;
}

/** Paso 4 as the portal counts it: each slot's accepted e-CF against its quota. */
export interface SimulationCounts {
  readonly round: number;
  readonly accepted: number;
  readonly total: number;
  readonly slots: readonly { readonly label: string; readonly accepted: number; readonly quota: number }[];
}

/**
 * Pasos the appliance finishes on its side while the portal decides:
 * it sends (2), writes the PDFs (5), checks the URLs (7), sees arrivals
 * (9, 11); the portal's counters or verdicts may still say otherwise.
 */
export const CONFIRM_IN_PORTAL: ReadonlySet<PasoNumber> = new Set<PasoNumber>([2, 5, 7, 9, 11]);

export interface CaseLine {
  readonly sheet: string;
  readonly row: number;
  readonly encf: string;
  readonly kind: string;
  readonly state: string;
  readonly trackId: string | null;
  readonly sentAt: string | null;
  readonly verdictAt: string | null;
  readonly messages: readonly { code: number; value: string }[];
}

export interface CertificationReport {
  readonly tenant: { readonly id: string; readonly rnc: string };
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly pasos: readonly PasoReport[];
  readonly counts: PortalCounts;
  /** null until `ecf certify simulate` has run. */
  readonly simulation: SimulationCounts | null;
  readonly generations: { readonly paso2: number; readonly paso3: number };
  readonly cases: { readonly paso2: readonly CaseLine[]; readonly paso3: readonly CaseLine[] };
  /** The first Paso not done, and what to do about it. */
  readonly next: string;
}

const line = (c: CaseRow): CaseLine => ({
  sheet: c.sheet,
  row: c.row,
  encf: c.encf,
  kind: c.kind,
  state: c.state,
  trackId: c.trackId,
  sentAt: c.sentAt,
  verdictAt: c.verdictAt,
  messages: c.messages,
});

export async function certificationReport(engine: Engine, tenantId: string): Promise<CertificationReport> {
  const certification = await requireCertification(engine, tenantId);
  const tenant = await engine.db.selectFrom('tenants').select(['id', 'rnc']).where('id', '=', tenantId).executeTakeFirstOrThrow();
  const [paso2, paso3] = await Promise.all([loadCases(engine, tenantId, 2), loadCases(engine, tenantId, 3)]);
  const pasos = PASOS.map((p): PasoReport => {
    const r = certification.pasos[p.paso];
    return {
      paso: p.paso,
      title: p.title,
      state: r.state,
      at: r.at,
      note: r.note ?? null,
      appliance: p.appliance,
      person: p.person,
      command: p.command,
      detail: r.detail ?? null,
      confirmInPortal: r.state === 'done' && CONFIRM_IN_PORTAL.has(p.paso),
    };
  });
  const open = pasos.find((p) => p.state !== 'done');
  const next = !open
    ? 'Every Paso is done: the authority authorizes the tenant as an electronic issuer (Stage 3).'
    : `Paso ${open.paso} (${open.title}): ` +
      (open.note && open.state !== 'pending' ? open.note : [open.person && `in the portal, ${open.person}`, open.command && `run ${open.command}`].filter(Boolean).join('; ') + '.');
  return {
    tenant: { id: tenant.id, rnc: tenant.rnc },
    startedAt: certification.startedAt,
    updatedAt: certification.updatedAt,
    pasos,
    counts: portalCounts(paso2, paso3),
    simulation: simulationCounts(certification.pasos[4].detail),
    generations: { paso2: paso2[0]?.generation ?? 0, paso3: paso3[0]?.generation ?? 0 },
    cases: { paso2: paso2.map(line), paso3: paso3.map(line) },
    next,
  };
}

function simulationCounts(detail: Record<string, unknown> | undefined): SimulationCounts | null {
  const slots = detail?.['slots'] as Record<string, { label: string; accepted: number; quota: number }> | undefined;
  if (!detail || !slots || typeof detail['round'] !== 'number') return null;
  return {
    round: detail['round'],
    accepted: Number(detail['accepted'] ?? 0),
    total: Number(detail['total'] ?? 0),
    slots: Object.values(slots).map((x) => ({ label: x.label, accepted: x.accepted, quota: x.quota })),
  };
}

const stateText = (p: PasoReport): string => (p.confirmInPortal ? 'done here, confirm in the portal' : p.state.replace('_', ' '));

/** The report as text, for a terminal or a file. */
export function reportText(r: CertificationReport): string {
  const mark: Record<PasoState, string> = { done: '[x]', in_progress: '[~]', failed: '[!]', pending: '[ ]' };
  const out: string[] = [`Certification of RNC ${r.tenant.rnc} (started ${r.startedAt})`, ''];
  for (const p of r.pasos) {
    out.push(`${mark[p.state]} Paso ${p.paso}: ${p.title}${p.state === 'pending' ? '' : ` (${stateText(p)}${p.at ? `, ${p.at}` : ''})`}`);
    if (p.note) out.push(`      ${p.note}`);
  }
  const c = r.counts;
  out.push(
    '',
    `Paso 2: ${c.ecf.accepted}/${c.ecf.total} Comprobantes Aceptados, ${c.rfce.accepted}/${c.rfce.total} Resúmenes de Consumo Aceptados, ${c.uploads} consumo XMLs to upload`,
    `Paso 3: ${c.approvals.accepted}/${c.approvals.total} Aprobaciones comerciales aceptadas`,
  );
  const sim = r.simulation;
  if (sim) {
    out.push(`Paso 4 (round ${sim.round}): ${sim.accepted}/${sim.total} accepted; ${sim.slots.map((x) => `${x.label} ${x.accepted}/${x.quota}`).join(', ')}`);
  }
  const cases = [...r.cases.paso2, ...r.cases.paso3];
  if (cases.length > 0) {
    out.push('');
    for (const k of cases) {
      const said = k.messages.map((m) => (m.code ? `${m.code} ${m.value}` : m.value)).join('; ');
      out.push(`  ${k.sheet} row ${k.row}  ${k.encf}  ${k.state}${said ? `: ${said}` : ''}`);
    }
  }
  out.push('', `Next: ${r.next}`);
  return out.join('\n');
}
