import type { Engine } from '../engine-types.js';
import type { Db } from '../store/database.js';
import type { CertificationCasesTable } from '../store/schema.js';
import { caseMessagesOf, cellsOf } from './case-columns.js';
import { phaseOf, type CaseState, type Phase, type PlannedCase } from './plan.js';

/** Reading a certification's cases: the current generation of a Paso's set, with each case's phase. */

export interface CaseRow extends PlannedCase {
  readonly paso: number;
  readonly generation: number;
  readonly sheet: string;
  readonly row: number;
  readonly caseId: string;
  readonly cells: Readonly<Record<string, string>>;
  /** The stored blob (compressed, or raw in rows older than migration 0017): read it with caseXml. */
  readonly xml: Buffer | null;
  readonly xmlSha256: Buffer | null;
  readonly securityCode: string | null;
  readonly trackId: string | null;
  readonly messages: readonly { code: number; value: string }[];
  readonly sentAt: string | null;
  readonly verdictAt: string | null;
}

/** The case's signed document as it was built (decompressed, its SHA-256 checked: DocumentDamaged otherwise). */
export async function caseXml(engine: Pick<Engine, 'db' | 'documents'>, c: Pick<CaseRow, 'id' | 'encf' | 'xml' | 'xmlSha256'>): Promise<Buffer> {
  if (!c.xml) throw new Error(`certification case ${c.id} (${c.encf}) has no document yet`);
  return engine.documents.read(engine.db, c.xml, c.xmlSha256, { table: 'certification_cases', id: c.id, encf: c.encf });
}

/** The newest generation imported for the Paso; 0 when none. */
export async function currentGeneration(db: Db, tenantId: string, paso: number): Promise<number> {
  const row = await db
    .selectFrom('certification_cases')
    .select((eb) => eb.fn.max('generation').as('g'))
    .where('tenant_id', '=', tenantId)
    .where('paso', '=', paso)
    .executeTakeFirst();
  return Number(row?.g ?? 0);
}

function toCase(r: CertificationCasesTable, rfceEncfs: ReadonlySet<string>): CaseRow {
  return {
    id: r.id,
    paso: r.paso,
    generation: r.generation,
    sheet: r.sheet,
    row: r.row_number,
    caseId: r.case_id,
    kind: r.kind,
    encf: r.encf,
    modifiesEncf: r.modifies_encf,
    cells: cellsOf(r.cells),
    state: r.state as CaseState,
    phase: phaseOf(r.kind, r.encf, rfceEncfs) as Phase,
    xml: r.xml,
    xmlSha256: r.xml_sha256,
    securityCode: r.security_code,
    trackId: r.track_id,
    messages: caseMessagesOf(r.messages),
    sentAt: r.sent_at,
    verdictAt: r.verdict_at,
  };
}

/** The cases of the Paso's current generation, in workbook order (sheet, then row). */
export async function loadCases(engine: Pick<Engine, 'db'>, tenantId: string, paso: number, generation?: number): Promise<CaseRow[]> {
  const g = generation ?? (await currentGeneration(engine.db, tenantId, paso));
  if (g === 0) return [];
  const rows = await engine.db
    .selectFrom('certification_cases')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('paso', '=', paso)
    .where('generation', '=', g)
    .orderBy('sheet')
    .orderBy('row_number')
    .execute();
  const rfceEncfs = new Set(rows.filter((r) => r.kind === 'rfce').map((r) => r.encf));
  return rows.map((r) => toCase(r, rfceEncfs));
}

export interface PortalCounts {
  /** e-CF sent to recepcion (every type but the consumo 32s): "n/21 Comprobantes Aceptados", after a rejection only what was accepted since. */
  readonly ecf: { readonly accepted: number; readonly total: number };
  /** "n/4 Resúmenes de Consumo Aceptados". */
  readonly rfce: { readonly accepted: number; readonly total: number };
  /** The full consumo XMLs the person uploads in the portal. */
  readonly uploads: number;
  /** "n/11 Aprobaciones comerciales aceptadas". */
  readonly approvals: { readonly accepted: number; readonly total: number };
}

const SEND_ORDER: readonly Phase[] = ['ecf', 'rfce', 'note', 'upload', 'approval'];

/**
 * Send order: when the send started, then (the same instant) the order a run
 * sends in, phase by phase and in workbook order within one.
 */
const sentBefore = (a: CaseRow, b: CaseRow): number =>
  (a.sentAt ?? '').localeCompare(b.sentAt ?? '') || SEND_ORDER.indexOf(a.phase) - SEND_ORDER.indexOf(b.phase) || a.sheet.localeCompare(b.sheet) || a.row - b.row;

/**
 * "n/21 Comprobantes Aceptados" as the portal counts it: a rejected e-CF
 * restarts the counter (CERTIFICATION.md §2.7), so only the acceptances of
 * e-CF sent after the last rejected one count; the authority judges in the
 * order it receives.
 */
function portalEcfCount(paso2: readonly CaseRow[]): { accepted: number; total: number } {
  const ecf = paso2.filter((c) => c.phase === 'ecf' || c.phase === 'note');
  const lastRejected = ecf.filter((c) => c.state === 'rejected').sort(sentBefore).at(-1);
  const counted = ecf.filter((c) => c.state === 'accepted' && (!lastRejected || sentBefore(c, lastRejected) > 0));
  return { accepted: counted.length, total: ecf.length };
}

/** The counters as the portal shows them. */
export function portalCounts(paso2: readonly CaseRow[], paso3: readonly CaseRow[]): PortalCounts {
  const count = (cases: readonly CaseRow[], phases: readonly Phase[]) => {
    const of = cases.filter((c) => phases.includes(c.phase));
    return { accepted: of.filter((c) => c.state === 'accepted').length, total: of.length };
  };
  return {
    ecf: portalEcfCount(paso2),
    rfce: count(paso2, ['rfce']),
    uploads: paso2.filter((c) => c.phase === 'upload').length,
    approvals: count(paso3, ['approval']),
  };
}
