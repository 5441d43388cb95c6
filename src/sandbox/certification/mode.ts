import type { SandboxMessage } from '../outcomes.js';
import { compareWithRow, type WorkbookRow } from './compare.js';
import {
  ACECF_REJECTION_CLEARS_ACECF,
  ACECF_RESET_NOTICE,
  ALREADY_USED_CODE,
  ALREADY_USED_TEXT,
  CONDITIONAL_COUNTS,
  CONSUMO_LIMIT,
  ECF_REJECTION_CLEARS,
  ECF_RESET_NOTICE,
  NOT_ISSUED_CODE,
  NOT_ISSUED_TEXT,
  PASO4_QUOTA,
  PASO4_REJECTION_CLEARS_PASO4,
  PASO4_RESET_NOTICE,
  RFCE_REJECTION_CLEARS_RFCE,
  RFCE_RESET_NOTICE,
} from './rules.js';

/**
 * The sandbox's certification mode (CERTIFICATION.md §2, §4.3): per
 * applicant RNC, a set of test cases handed out as workbooks, the judge of
 * what the applicant sends in `certecf` against the set, and the portal's
 * counters and messages. All in memory, like the rest of the sandbox.
 */

export type Variant = 'section8' | 'full';
export const VARIANTS: readonly Variant[] = ['section8', 'full'];

/** What a set is made of: the two workbooks and the rows they hold. */
export interface GeneratedSet {
  readonly paso2: Buffer;
  readonly paso3: Buffer;
  /** The rows of both workbooks (sheets ECF, RFCE, ACEECF_Generadas). */
  readonly rows: readonly WorkbookRow[];
}

export interface CertificationSources {
  generate(rnc: string, variant: Variant, now: Date): Promise<GeneratedSet>;
  /** A signed document's fields as the workbook's columns (column → text). */
  flatten(kind: 'ecf' | 'rfce' | 'acecf', xml: string): Record<string, string>;
}

export interface PlayerReport {
  readonly url: string;
  readonly at: string;
  /** Answers received that were right. */
  readonly correct: number;
  readonly sent: number;
  readonly authentication: { readonly ok: boolean; readonly detail: string };
  readonly documents: readonly { readonly encf: string; readonly ok: boolean; readonly status: number | null; readonly problems: readonly string[]; readonly answer?: string }[];
}

interface Run {
  ecf: Map<string, Date>;
  rfce: Map<string, Date>;
  /** Full consumo XMLs uploaded in the portal box, with the security code of their signature. */
  consumo: Map<string, string>;
  /** RFCE security codes accepted, to match the uploads. */
  rfceCodes: Map<string, string>;
  /** ACECF rows accepted (their Excel row number). */
  acecf: Set<number>;
  paso4: Map<string, Set<string>>;
  /** Conditional acceptances, shown not counted. */
  conditional: Set<string>;
}

interface CertificationSet {
  readonly rnc: string;
  readonly variant: Variant;
  readonly createdAt: Date;
  readonly fileStamp: string;
  readonly generated: GeneratedSet;
  readonly ecfRows: Map<string, WorkbookRow>;
  readonly rfceRows: Map<string, WorkbookRow>;
  readonly acecfRows: readonly WorkbookRow[];
  /** The type-32 rows under 250,000: sent as RFCE, and uploaded in the portal. */
  readonly consumo: Set<string>;
  run: Run;
  restarts: number;
  messages: { at: string; text: string }[];
  paso9: PlayerReport | null;
  paso11: PlayerReport | null;
}

const freshRun = (): Run => ({
  ecf: new Map(),
  rfce: new Map(),
  consumo: new Map(),
  rfceCodes: new Map(),
  acecf: new Set(),
  paso4: new Map(),
  conditional: new Set(),
});

/** A cell's value in any casing of its header, trimmed header. */
export function cell(row: WorkbookRow, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(row.cells)) if (k.trim().toLowerCase() === wanted) return v;
  return undefined;
}

/** What the judge says of a document before the scripted outcome. */
export type SetJudgement =
  /** Not a document of any set: the normal checks apply, and Paso 4 counts it. */
  | { readonly inSet: false; readonly paso4: boolean }
  /** Accepted earlier in this run: 1209. */
  | { readonly inSet: true; readonly duplicate: SandboxMessage }
  /** Rechazado with these messages, or (none) on to the scripted outcome. */
  | { readonly inSet: true; readonly messages: readonly SandboxMessage[] };

export interface Settled {
  readonly kind: 'ecf' | 'rfce';
  readonly rnc: string;
  readonly encf: string;
  readonly code: 1 | 2 | 4;
  readonly messages: readonly SandboxMessage[];
  /** A "try again later" answer: neither a count nor a reset. */
  readonly transient: boolean;
  readonly totalAmount: string | null;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** {RNC}-{ddMMyyyyHHmmss}, as one observed workbook was named (§2.1, UNCERTAIN). */
const stampOf = (d: Date) => `${pad(d.getUTCDate())}${pad(d.getUTCMonth() + 1)}${d.getUTCFullYear()}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;

export class CertificationMode {
  readonly #sets = new Map<string, CertificationSet>();

  constructor(
    private readonly sources: CertificationSources,
    private readonly now: () => Date,
  ) {}

  async start(rnc: string, variant: Variant): Promise<void> {
    const at = this.now();
    const generated = await this.sources.generate(rnc, variant, at);
    const ecfRows = new Map<string, WorkbookRow>();
    const rfceRows = new Map<string, WorkbookRow>();
    const acecfRows: WorkbookRow[] = [];
    for (const row of generated.rows) {
      if (row.sheet === 'ACEECF_Generadas') {
        acecfRows.push(row);
        continue;
      }
      const encf = cell(row, 'ENCF')?.toUpperCase();
      if (!encf) continue;
      (row.sheet === 'ECF' ? ecfRows : rfceRows).set(encf, row);
    }
    const consumo = new Set<string>();
    for (const [encf, row] of ecfRows) {
      if (encf.slice(1, 3) !== '32') continue;
      if (rfceRows.has(encf) || Number(cell(row, 'MontoTotal') ?? 'NaN') < CONSUMO_LIMIT) consumo.add(encf);
    }
    this.#sets.set(rnc, {
      rnc,
      variant,
      createdAt: at,
      fileStamp: stampOf(at),
      generated,
      ecfRows,
      rfceRows,
      acecfRows,
      consumo,
      run: freshRun(),
      restarts: 0,
      messages: [],
      paso9: null,
      paso11: null,
    });
  }

  has(rnc: string): boolean {
    return this.#sets.has(rnc);
  }

  /** Whether the e-NCF is one of the RNC's set (sheet ECF). */
  inSet(rnc: string, encf: string): boolean {
    return this.#sets.get(rnc)?.ecfRows.has(encf) ?? false;
  }

  workbook(rnc: string, paso: 2 | 3): { fileName: string; bytes: Buffer } | null {
    const set = this.#sets.get(rnc);
    if (!set) return null;
    return { fileName: `${rnc}-${set.fileStamp}${paso === 3 ? '-aprobaciones' : ''}.xlsx`, bytes: paso === 2 ? set.generated.paso2 : set.generated.paso3 };
  }

  /** Restarts every counter of the RNC's set (the set itself stays). */
  reset(rnc: string): boolean {
    const set = this.#sets.get(rnc);
    if (!set) return false;
    set.run = freshRun();
    set.restarts++;
    set.paso9 = null;
    set.paso11 = null;
    this.#say(set, 'Las pruebas del conjunto de datos fueron reiniciadas a solicitud (sandbox).');
    return true;
  }

  forget(): void {
    this.#sets.clear();
  }

  #say(set: CertificationSet, text: string): void {
    set.messages.push({ at: this.now().toISOString(), text });
  }

  /**
   * Judges an e-CF or RFCE received in certecf that passed the schema and
   * signature: against its row when its issuer has a set and the e-NCF is
   * one of it (a note also needs its original accepted in this run, 614);
   * otherwise it is Paso 4's, judged by the normal checks.
   */
  judge(kind: 'ecf' | 'rfce', rnc: string, encf: string, xml: string): SetJudgement {
    const set = this.#sets.get(rnc);
    if (!set) return { inSet: false, paso4: false };
    const row = (kind === 'ecf' ? set.ecfRows : set.rfceRows).get(encf);
    if (!row) return { inSet: false, paso4: true };
    if ((kind === 'ecf' ? set.run.ecf : set.run.rfce).has(encf)) return { inSet: true, duplicate: { code: ALREADY_USED_CODE, value: ALREADY_USED_TEXT(encf) } };
    const fields = this.sources.flatten(kind, xml);
    const messages: SandboxMessage[] = [];
    const type = encf.slice(1, 3);
    if (kind === 'ecf' && (type === '33' || type === '34')) {
      const modified = fieldOf(fields, 'NCFModificado')?.toUpperCase();
      if (!modified || !set.run.ecf.has(modified)) messages.push({ code: NOT_ISSUED_CODE, value: NOT_ISSUED_TEXT });
    }
    messages.push(...compareWithRow(row, fields, { added: kind === 'rfce' ? ['FechaHoraFirma', 'CodigoSeguridadeCF'] : ['FechaHoraFirma'] }));
    return { inSet: true, messages };
  }

  /** Counts a verdict given to an e-CF or RFCE of an RNC with a set; a rejection restarts the counters it clears. */
  settle(s: Settled, securityCode: string | null): void {
    const set = this.#sets.get(s.rnc);
    if (!set || s.transient) return;
    const row = (s.kind === 'ecf' ? set.ecfRows : set.rfceRows).get(s.encf);
    if (s.messages.some((m) => m.code === ALREADY_USED_CODE)) return;
    if (!row) return this.#settlePaso4(set, s);
    if (s.code === 1) {
      if (s.kind === 'ecf') set.run.ecf.set(s.encf, this.now());
      else {
        set.run.rfce.set(s.encf, this.now());
        if (securityCode) set.run.rfceCodes.set(s.encf, securityCode);
      }
      set.run.conditional.delete(s.encf);
      return;
    }
    if (s.code === 4) {
      if (CONDITIONAL_COUNTS) (s.kind === 'ecf' ? set.run.ecf : set.run.rfce).set(s.encf, this.now());
      else set.run.conditional.add(s.encf);
      return;
    }
    if (s.kind === 'ecf') {
      if (ECF_REJECTION_CLEARS.ecf) set.run.ecf.clear();
      if (ECF_REJECTION_CLEARS.rfce) {
        set.run.rfce.clear();
        set.run.rfceCodes.clear();
      }
      if (ECF_REJECTION_CLEARS.consumo) set.run.consumo.clear();
      if (ECF_REJECTION_CLEARS.acecf) set.run.acecf.clear();
      set.restarts++;
      this.#say(set, `${ECF_RESET_NOTICE} (${s.encf}: ${s.messages.map((m) => m.value).join(' ')})`);
    } else if (RFCE_REJECTION_CLEARS_RFCE) {
      set.run.rfce.clear();
      set.run.rfceCodes.clear();
      this.#say(set, `${RFCE_RESET_NOTICE} (${s.encf}: ${s.messages.map((m) => m.value).join(' ')})`);
    }
  }

  #settlePaso4(set: CertificationSet, s: Settled): void {
    const type = s.encf.slice(1, 3);
    const key = s.kind === 'rfce' ? '32 RFCE' : type;
    if (s.code === 1 || (s.code === 4 && CONDITIONAL_COUNTS)) {
      const seen = set.run.paso4.get(key) ?? new Set<string>();
      seen.add(s.encf);
      set.run.paso4.set(key, seen);
    } else if (s.code === 2 && PASO4_REJECTION_CLEARS_PASO4) {
      set.run.paso4.clear();
      this.#say(set, `${PASO4_RESET_NOTICE} (${s.encf}: ${s.messages.map((m) => m.value).join(' ')})`);
    }
  }

  /**
   * Judges an ACECF whose buyer (the applicant) has a set, against the
   * Paso 3 rows of its e-NCF: null when it is none of the set's.
   */
  judgeApproval(xml: string): { rnc: string; accepted: boolean; messages: string[] } | null {
    const fields = this.sources.flatten('acecf', xml);
    const buyer = fieldOf(fields, 'RNCComprador') ?? '';
    const set = this.#sets.get(buyer);
    if (!set) return null;
    const encf = fieldOf(fields, 'eNCF')?.toUpperCase();
    const candidates = set.acecfRows.filter((r) => cell(r, 'eNCF')?.toUpperCase() === encf);
    if (!candidates.length) return null;
    // Two rows may share an e-NCF (an approval and a rejection): the one it matches, else the closest.
    const judged = candidates
      .map((row) => ({ row, messages: compareWithRow(row, fields, { added: [], asAmount: ['MontoTotal'] }) }))
      .sort((a, b) => a.messages.length - b.messages.length || Number(set.run.acecf.has(a.row.row)) - Number(set.run.acecf.has(b.row.row)));
    const best = judged[0]!;
    if (!best.messages.length) {
      if (set.run.acecf.has(best.row.row)) return { rnc: buyer, accepted: false, messages: [ALREADY_USED_TEXT(encf!)] };
      set.run.acecf.add(best.row.row);
      return { rnc: buyer, accepted: true, messages: [] };
    }
    if (ACECF_REJECTION_CLEARS_ACECF) set.run.acecf.clear();
    this.#say(set, `${ACECF_RESET_NOTICE} (${encf}: ${best.messages.map((m) => m.value).join(' ')})`);
    return { rnc: buyer, accepted: false, messages: best.messages.map((m) => m.value) };
  }

  /**
   * The portal's box "Facturas de consumo < 250Mil": a full type-32 XML under
   * 250,000, already checked for schema and signature by the caller.
   * In the set: compared with its row (and with its RFCE's security code when
   * that came first); otherwise Paso 4's.
   */
  uploadConsumo(rnc: string, encf: string, xml: string, securityCode: string): { accepted: boolean; messages: string[]; paso: 2 | 4 } {
    const set = this.#sets.get(rnc)!;
    const row = set.ecfRows.get(encf);
    if (!row) {
      const fields = this.sources.flatten('ecf', xml);
      const total = Number(fieldOf(fields, 'MontoTotal') ?? 'NaN');
      if (encf.slice(1, 3) !== '32' || !(total < CONSUMO_LIMIT)) return { accepted: false, messages: ['Solo se aceptan facturas de consumo (tipo 32) menores de RD$250,000.00.'], paso: 4 };
      const key = 'Facturas de consumo < 250Mil';
      const seen = set.run.paso4.get(key) ?? new Set<string>();
      seen.add(encf);
      set.run.paso4.set(key, seen);
      return { accepted: true, messages: [], paso: 4 };
    }
    if (!set.consumo.has(encf)) return { accepted: false, messages: [`El eNCF ${encf} no es una factura de consumo menor de RD$250,000.00 del conjunto de datos; se envía al servicio de recepción.`], paso: 2 };
    if (set.run.consumo.has(encf)) return { accepted: false, messages: [ALREADY_USED_TEXT(encf)], paso: 2 };
    const messages = compareWithRow(row, this.sources.flatten('ecf', xml), { added: ['FechaHoraFirma'] }).map((m) => m.value);
    const rfceCode = set.run.rfceCodes.get(encf);
    if (rfceCode && rfceCode !== securityCode) {
      messages.push(`El código de seguridad del comprobante (${securityCode}) no coincide con el CodigoSeguridadeCF (${rfceCode}) del resumen aceptado.`);
    }
    if (messages.length) return { accepted: false, messages, paso: 2 };
    set.run.consumo.set(encf, securityCode);
    return { accepted: true, messages: [], paso: 2 };
  }

  recordPlayer(rnc: string, paso: 9 | 11, report: PlayerReport): void {
    const set = this.#sets.get(rnc);
    if (!set) return;
    if (paso === 9) set.paso9 = report;
    else set.paso11 = report;
    this.#say(set, `Paso ${paso}: ${report.correct}/${report.sent} respuestas correctas de ${report.url}`);
  }

  /** The progress as the portal counts it. */
  progress(rnc: string): Progress | null {
    const set = this.#sets.get(rnc);
    if (!set) return null;
    const ecfTotal = [...set.ecfRows.keys()].filter((e) => !set.consumo.has(e)).length;
    const rfceTotal = set.rfceRows.size;
    const consumoTotal = set.consumo.size;
    const acecfTotal = set.acecfRows.length;
    const counter = (accepted: readonly string[], total: number, label: string) => ({ accepted: accepted.length, total, text: `${accepted.length}/${total} ${label}`, encfs: accepted });
    const ecf = counter([...set.run.ecf.keys()], ecfTotal, 'Comprobantes Aceptados');
    const rfce = counter([...set.run.rfce.keys()], rfceTotal, 'Resúmenes de Consumo Aceptados');
    const consumo = counter([...set.run.consumo.keys()], consumoTotal, 'Comprobantes Aceptados');
    const acecfAccepted = set.acecfRows.filter((r) => set.run.acecf.has(r.row));
    const acecf = {
      accepted: acecfAccepted.length,
      total: acecfTotal,
      text: `${acecfAccepted.length}/${acecfTotal} Aprobaciones comerciales aceptadas`,
      rows: acecfAccepted.map((r) => r.row),
    };
    const paso4 = Object.entries(PASO4_QUOTA).map(([type, required]) => {
      const accepted = Math.min(set.run.paso4.get(type)?.size ?? 0, required);
      return { type, accepted, required, text: `${type}: ${accepted}/${required}`, encfs: [...(set.run.paso4.get(type) ?? [])] };
    });
    const player = (r: PlayerReport | null) => (r ? { ...r, text: `${r.correct}/${r.sent} respuestas correctas`, done: r.sent > 0 && r.correct === r.sent && r.authentication.ok } : null);
    return {
      rnc,
      variant: set.variant,
      createdAt: set.createdAt.toISOString(),
      restarts: set.restarts,
      workbooks: { paso2: `/_sandbox/certification/${rnc}/paso2.xlsx`, paso3: `/_sandbox/certification/${rnc}/paso3.xlsx` },
      paso2: {
        ecf,
        rfce,
        consumo,
        conditional: [...set.run.conditional],
        done: ecf.accepted === ecf.total && rfce.accepted === rfce.total && consumo.accepted === consumo.total,
      },
      paso3: { ...acecf, done: acecf.accepted === acecf.total },
      paso4: { types: paso4, done: paso4.every((t) => t.accepted >= t.required) },
      paso9: player(set.paso9),
      paso11: player(set.paso11),
      messages: set.messages.length ? set.messages : [{ at: set.createdAt.toISOString(), text: 'No existen mensajes' }],
    };
  }
}

export interface Progress {
  readonly rnc: string;
  readonly variant: Variant;
  readonly createdAt: string;
  readonly restarts: number;
  readonly workbooks: { readonly paso2: string; readonly paso3: string };
  readonly paso2: {
    readonly ecf: Counter;
    readonly rfce: Counter;
    readonly consumo: Counter;
    readonly conditional: readonly string[];
    readonly done: boolean;
  };
  readonly paso3: { readonly accepted: number; readonly total: number; readonly text: string; readonly rows: readonly number[]; readonly done: boolean };
  readonly paso4: { readonly types: readonly { type: string; accepted: number; required: number; text: string; encfs: readonly string[] }[]; readonly done: boolean };
  readonly paso9: (PlayerReport & { text: string; done: boolean }) | null;
  readonly paso11: (PlayerReport & { text: string; done: boolean }) | null;
  readonly messages: readonly { at: string; text: string }[];
}

interface Counter {
  readonly accepted: number;
  readonly total: number;
  readonly text: string;
  readonly encfs: readonly string[];
}

function fieldOf(fields: Readonly<Record<string, string>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(fields)) if (k.trim().toLowerCase() === wanted) return v;
  return undefined;
}
