import { createHash } from 'node:crypto';
import { signingCredentials } from '../certificates/certificates.js';
import { toStoredInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { newId } from '../ids.js';
import { signingKey } from '../signing/xmldsig.js';
import { inTransaction, type Tx } from '../store/database.js';
import type { CertificationCasesTable } from '../store/schema.js';
import { CaseProblemError, buildCaseDocument } from './build.js';
import { currentGeneration } from './cases.js';
import { rfceStandings } from './consumo-binding.js';
import { kindOfType } from './columns.js';
import { phaseOf } from './plan.js';
import { recordPasoIn, requireCertification } from './state.js';
import { readCertificationWorkbook, type WorkbookRow } from './workbook.js';

/**
 * Importing a workbook the portal handed out (Paso 2: e-CF and RFCE; Paso 3:
 * commercial approvals). Before anything is stored, every row is mapped and
 * built, signed with the tenant's certificate and checked against its XSD,
 * so every row that cannot be sent is reported at once, with its row number,
 * and a workbook with any problem changes nothing. A workbook imported after
 * a reset starts a new generation of the set.
 */

export interface ImportProblem {
  readonly sheet: string;
  readonly row: number | null;
  readonly column?: string;
  readonly message: string;
}

export interface ImportSummary {
  readonly paso: 2 | 3;
  readonly file: string;
  readonly sha256: string;
  /** Cases per document kind: ecf31…ecf47, rfce, acecf. */
  readonly byKind: Readonly<Record<string, number>>;
  /** The consumo e-CF 32 whose full XML the person uploads in the portal. */
  readonly uploads: number;
  readonly total: number;
  /** Every row that cannot be sent as it is: any one keeps the workbook out. */
  readonly problems: readonly ImportProblem[];
  /** Worth knowing, but the rows are sent exactly as given (an unknown header no row fills, …). */
  readonly warnings: readonly ImportProblem[];
  /** The generation stored; null when problems kept the workbook out. */
  readonly generation: number | null;
  /**
   * Consumo e-NCF whose RFCE the authority accepted in an earlier generation:
   * the RFCE stays accepted and the full e-CF 32 keeps the signed bytes whose
   * security code it carries (consumo-binding.ts), so they are not signed again.
   */
  readonly kept: readonly string[];
}

interface CaseSpec {
  readonly sheet: string;
  readonly row: number;
  readonly kind: string;
  readonly encf: string;
  readonly caseId: string;
  readonly modifiesEncf: string | null;
  readonly cells: Readonly<Record<string, string>>;
}

export async function importWorkbook(engine: Engine, tenantId: string, bytes: Buffer, fileName: string): Promise<ImportSummary> {
  await requireCertification(engine, tenantId);
  const tenant = await engine.db.selectFrom('tenants').select(['rnc']).where('id', '=', tenantId).executeTakeFirstOrThrow();
  const book = await readCertificationWorkbook(bytes);
  const problems: ImportProblem[] = book.problems.filter((p) => p.level === 'error').map(({ level: _, row, ...p }) => ({ ...p, row: row || null }));
  const warnings: ImportProblem[] = book.problems.filter((p) => p.level === 'warning').map(({ level: _, row, ...p }) => ({ ...p, row: row || null }));
  const specs: CaseSpec[] = [];
  for (const r of book.rows) {
    const spec = caseSpec(book.paso, r, tenant.rnc, problems);
    if (spec) specs.push(spec);
  }
  const seen = new Map<string, CaseSpec>();
  for (const s of specs) {
    const key = `${s.sheet}|${s.encf}`;
    const first = seen.get(key);
    if (first) problems.push({ sheet: s.sheet, row: s.row, message: `${s.encf} is also in row ${first.row}: each case must have its own e-NCF.` });
    else seen.set(key, s);
  }

  // Build every case as it will be sent, so the XSD's objections come now, with their rows.
  const creds = await signingCredentials(engine, tenantId);
  const key = signingKey(creds.privateKey, creds.certificate);
  const now = engine.clock.now();
  const codes = new Map<string, string>();
  for (const s of [...specs].sort((a, b) => Number(a.kind === 'rfce') - Number(b.kind === 'rfce'))) {
    if (s.kind === 'rfce' && !codes.has(s.encf)) {
      if (!specs.some((x) => x.kind === 'ecf32' && x.encf === s.encf)) {
        problems.push({ sheet: s.sheet, row: s.row, message: `no type-32 row of the ECF sheet has e-NCF ${s.encf}: the RFCE carries that e-CF's security code.` });
      }
      continue;
    }
    try {
      const doc = buildCaseDocument(s, key, now, codes.get(s.encf));
      if (s.kind === 'ecf32' && doc.securityCode) codes.set(s.encf, doc.securityCode);
    } catch (e) {
      if (!(e instanceof CaseProblemError)) throw e;
      problems.push(...e.problems);
    }
  }

  const rfceEncfs = new Set(specs.filter((s) => s.kind === 'rfce').map((s) => s.encf));
  const byKind: Record<string, number> = {};
  for (const s of specs) byKind[s.kind] = (byKind[s.kind] ?? 0) + 1;
  const uploads = specs.filter((s) => phaseOf(s.kind, s.encf, rfceEncfs) === 'upload').length;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const summary = { paso: book.paso, file: fileName, sha256, byKind, uploads, total: specs.length, problems: collapseRepeated(problems), warnings: collapseRepeated(warnings) };
  if (problems.length > 0 || specs.length === 0) {
    if (specs.length === 0 && problems.length === 0) problems.push({ sheet: book.paso === 2 ? 'ECF' : 'ACEECF_Generadas', row: null, message: 'the workbook has no cases.' });
    return { ...summary, generation: null, kept: [] };
  }

  const at = toStoredInstant(now);
  const generation = await inTransaction(engine.db, async (tx) => {
    const inFlight = await tx
      .selectFrom('certification_cases')
      .select(['encf', 'state'])
      .where('tenant_id', '=', tenantId)
      .where('paso', '=', book.paso)
      .where('generation', '=', await currentGeneration(tx, tenantId, book.paso))
      .where('state', 'in', ['sending', 'sent'])
      .execute();
    if (inFlight.length > 0) {
      throw new EngineError(
        'conflict',
        'Certification.RunInProgress',
        `The set imported before has ${inFlight.length} case(s) sent whose verdict is not known yet (${inFlight.map((c) => c.encf).join(', ')}): run \`ecf certify run\` to finish them before importing a new workbook.`,
      );
    }
    const g = (await currentGeneration(tx, tenantId, book.paso)) + 1;
    const carried = book.paso === 2 ? await keptConsumo(tx, tenantId, g - 1, specs, warnings) : new Map<string, CarriedCase>();
    for (const s of specs) {
      const carry = carried.get(`${s.kind}|${s.encf}`);
      await tx
        .insertInto('certification_cases')
        .values({
          id: newId(),
          tenant_id: tenantId,
          paso: book.paso,
          generation: g,
          sheet: s.sheet,
          row_number: s.row,
          case_id: s.caseId,
          kind: s.kind,
          encf: s.encf,
          modifies_encf: s.modifiesEncf,
          cells: JSON.stringify(s.cells),
          state: 'imported',
          xml: null,
          security_code: null,
          track_id: null,
          messages: null,
          sent_at: null,
          verdict_at: null,
          ...carry,
          updated_at: at,
        })
        .execute();
    }
    await recordPasoIn(
      tx,
      tenantId,
      book.paso,
      {
        state: 'in_progress',
        note: `Workbook ${fileName} imported (${specs.length} cases, generation ${g}): run \`ecf certify run\`.`,
        detail: { workbook: { file: fileName, sha256, generation: g, byKind, uploads }, counts: undefined, rejected: undefined },
      },
      now,
    );
    return { g, kept: [...new Set([...carried.keys()].map((k) => k.split('|')[1]!))] };
  });
  return { ...summary, generation: generation.g, kept: generation.kept };
}

type CarriedCase = Pick<CertificationCasesTable, 'state' | 'xml' | 'xml_sha256' | 'security_code' | 'track_id' | 'messages' | 'sent_at' | 'verdict_at'>;

/**
 * The consumo cases a new generation takes over from the earlier ones: where
 * the authority accepted the RFCE (it keeps it through an e-CF reset), the
 * RFCE stays accepted and the e-CF 32 keeps the bytes whose code it carries,
 * when the workbook's rows for that e-NCF are unchanged. Keyed kind|e-NCF.
 */
async function keptConsumo(tx: Tx, tenantId: string, before: number, specs: readonly CaseSpec[], warnings: ImportProblem[]): Promise<Map<string, CarriedCase>> {
  const carried = new Map<string, CarriedCase>();
  if (before === 0) return carried;
  for (const standing of (await rfceStandings(tx, tenantId, before)).values()) {
    if (standing.standing !== 'accepted') continue;
    const { rfce, ecf32 } = standing.binding;
    const rfceSpec = specs.find((s) => s.kind === 'rfce' && s.encf === rfce.encf);
    const ecfSpec = specs.find((s) => s.kind === 'ecf32' && s.encf === ecf32.encf);
    if (!rfceSpec || !ecfSpec) continue;
    if (JSON.stringify(rfceSpec.cells) !== rfce.cells || JSON.stringify(ecfSpec.cells) !== ecf32.cells) {
      warnings.push({
        sheet: 'RFCE',
        row: rfceSpec.row,
        message: `the authority accepted the RFCE of ${rfce.encf} in generation ${rfce.generation} with security code ${rfce.security_code}, but this workbook's rows for ${rfce.encf} differ: it is signed and sent again, and the portal may refuse the new summary or its upload.`,
      });
      continue;
    }
    carried.set(`rfce|${rfce.encf}`, {
      state: 'accepted',
      xml: rfce.xml,
      xml_sha256: rfce.xml_sha256,
      security_code: rfce.security_code,
      track_id: rfce.track_id,
      messages: rfce.messages,
      sent_at: rfce.sent_at,
      verdict_at: rfce.verdict_at,
    });
    carried.set(`ecf32|${ecf32.encf}`, { state: 'upload', xml: ecf32.xml, xml_sha256: ecf32.xml_sha256, security_code: ecf32.security_code, track_id: null, messages: null, sent_at: null, verdict_at: null });
  }
  return carried;
}

/**
 * One line for a problem every row repeats word for word (a workbook of
 * another taxpayer gives the same RNCEmisor line per row), naming the rows.
 */
export function collapseRepeated(problems: readonly ImportProblem[]): ImportProblem[] {
  const groups = new Map<string, ImportProblem[]>();
  for (const p of problems) {
    const key = `${p.column ?? ''}\u0000${p.message}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  return [...groups.values()].map((same) => {
    if (same.length === 1) return same[0]!;
    const bySheet = new Map<string, number[]>();
    for (const p of same) if (p.row !== null) bySheet.set(p.sheet, [...(bySheet.get(p.sheet) ?? []), p.row]);
    const where = [...bySheet].map(([sheet, rows]) => `${sheet} ${rowList(rows)}`).join('; ');
    const first = same[0]!;
    return { sheet: [...new Set(same.map((p) => p.sheet))].join(', '), row: null, ...(first.column && { column: first.column }), message: `${first.message} (${same.length} rows: ${where})` };
  });
}

/** 2, 3, 4, 7 → "rows 2–4, 7". */
function rowList(rows: readonly number[]): string {
  const sorted = [...rows].sort((a, b) => a - b);
  const spans: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    spans.push(i === j ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return `${sorted.length === 1 ? 'row' : 'rows'} ${spans.join(', ')}`;
}

/** One row as a case, or null with its problems noted. */
function caseSpec(paso: 2 | 3, r: WorkbookRow, rnc: string, problems: ImportProblem[]): CaseSpec | null {
  const problem = (message: string, column?: string) => problems.push({ sheet: r.sheet, row: r.row, ...(column && { column }), message });
  const cells = r.cells;
  if (paso === 3) {
    const encf = cells['eNCF'];
    if (!encf) return void problem('the row has no eNCF.', 'eNCF'), null;
    if (cells['RNCComprador'] !== rnc) problem(`RNCComprador is ${cells['RNCComprador'] ?? 'empty'}, not this tenant's RNC ${rnc}: this workbook is for another taxpayer.`, 'RNCComprador');
    return { sheet: r.sheet, row: r.row, kind: 'acecf', encf, caseId: `${cells['RNCEmisor'] ?? ''}${encf}`, modifiesEncf: null, cells };
  }
  const encf = cells['ENCF'];
  if (!encf) return void problem('the row has no ENCF.', 'ENCF'), null;
  const kind = r.sheet === 'RFCE' ? 'rfce' : kindOfType(cells['TipoeCF'] ?? '');
  if (!kind) return void problem(`TipoeCF ${cells['TipoeCF'] ?? '(empty)'} is not an e-CF type.`, 'TipoeCF'), null;
  if (kind !== 'rfce' && encf.slice(1, 3) !== cells['TipoeCF']) problem(`ENCF ${encf} is not of type ${cells['TipoeCF']}.`, 'ENCF');
  if (cells['RNCEmisor'] !== rnc) problem(`RNCEmisor is ${cells['RNCEmisor'] ?? 'empty'}, not this tenant's RNC ${rnc}: this workbook is for another taxpayer.`, 'RNCEmisor');
  const modifiesEncf = kind === 'ecf33' || kind === 'ecf34' ? (cells['NCFModificado'] ?? null) : null;
  return { sheet: r.sheet, row: r.row, kind, encf, caseId: cells['CasoPrueba'] ?? `${rnc}${encf}`, modifiesEncf, cells };
}
