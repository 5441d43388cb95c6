import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Selectable } from 'kysely';
import { dominicanDate } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError, type FieldError } from '../errors.js';
import { takesRfce } from '../documents/rfce-xml.js';
import { prepareDocument } from '../documents/prepare.js';
import { issueEcf } from '../ecf/issue.js';
import { getEcf } from '../ecf/queries.js';
import { taxauthOf, type EcfView } from '../ecf/views.js';
import { getSetting } from '../settings/settings.js';
import { addRange, MAX_SEQUENTIAL, NON_EXPIRING } from '../sequences/ranges.js';
import { paso4Needs } from './paso4-needs.js';
import type { EcfTable } from '../store/schema.js';
import { waitForVerdict, type Pace } from '../submission/wait.js';
import { getCertification, recordPaso, requireCertification } from './state.js';
import { SIMULATION_EXAMPLES } from './simulation-examples.js';
import {
  PASO4_CONDITIONAL_COUNTS,
  PASO4_REJECTION_RESTARTS,
  SIMULATION_QUOTA,
  SIMULATION_SLOTS,
  slotOfType,
  type SimulationSlot,
  type SlotId,
} from './simulation-slots.js';
import { uploadFileName } from './rules.js';
import { readEcfXml } from '../store/documents/index.js';
import { tenantKey } from '../tenants/lookup.js';

/**
 * Paso 4, "Pruebas de Simulación e-CF" (CERTIFICATION.md §1.2, §2.6, §2.7):
 * issues the portal's quota of ordinary e-CF per type in `cert` through the
 * normal issuing path (`issueEcf`, as POST /api/v1/ecf and `ecf issue`),
 * with new e-NCF from a `cert` range that starts above every number the
 * Paso 2 workbook and earlier runs used, and waits for the verdicts.
 *
 * Resumable: every e-CF carries the idempotency key
 * `certify-paso4:r{round}:{slot}:{position}:{attempt}`, so the store itself
 * says what this certification already issued, even if the process died
 * between issuing and recording. A position counts once its e-CF is
 * accepted. One the authority rejected does not count; as the portal
 * restarts the simulation on a rejection (PASO4_REJECTION_RESTARTS), the
 * run sends no notes after it and the next run starts a new round that
 * issues the whole quota again, with new e-NCFs. `review` and `failed` are
 * not rejections: the authority may hold the document, so they are reported
 * for `ecf retry` and never replaced.
 */

export const SIMULATION_ENVIRONMENT = 'cert' as const;
/** The range the portal gives each type in certification (§1.2 Paso 4). */
export const CERTIFICATION_RANGE_TO = 10_000_000;
/** Expiry of the ranges added here when the Paso 2 workbook gives none: the set's own date (§2.5). */
export const DEFAULT_RANGE_EXPIRY = '2028-12-31';
const KEY_PREFIX = 'certify-paso4';

export interface SimulationOptions {
  /** A folder of JSON payloads (the API's shape); slots it has none for use the built-in examples. */
  readonly payloadDir?: string;
  /** How long to wait for each e-CF's verdict, in seconds (default 300). */
  readonly waitSeconds?: number;
  /** The time that wait runs on (the real clock by default); tests pass one that moves their clock. */
  readonly pace?: Pace;
  /** Start a new round: nothing issued before counts (after the portal restarted the simulation). */
  readonly restart?: boolean;
  /** Told after every e-CF issued and every verdict: accepted so far out of the whole quota. */
  readonly onProgress?: (progress: { readonly accepted: number; readonly total: number; readonly event: string }) => void;
}

export type PositionState = 'accepted' | 'conditional' | 'pending' | 'rejected' | 'unsettled' | 'missing';

export interface SimulationDocument {
  readonly position: number;
  readonly attempt: number;
  readonly id: string;
  readonly encf: string;
  readonly status: string;
  readonly issuedNow: boolean;
  readonly modifies?: string;
  readonly messages?: readonly { code: number; value: string }[];
}

export interface SlotReport {
  readonly slot: SlotId;
  readonly label: string;
  readonly type: number;
  readonly quota: number;
  readonly accepted: number;
  /** Where this run took the slot's payloads from. */
  readonly source: 'payloads' | 'examples';
  /** Every e-CF of the slot in this round, latest attempt of each position last. */
  readonly documents: readonly SimulationDocument[];
  /** Why positions are still open: e.g. the note waits for an accepted e-CF to modify. */
  readonly waiting?: string;
}

export interface SimulationReport {
  readonly tenantId: string;
  readonly round: number;
  readonly complete: boolean;
  readonly accepted: number;
  readonly total: number;
  readonly issuedNow: number;
  readonly rangesAdded: readonly { type: number; rangeFrom: number; rangeTo: number; expiresOn: string | null }[];
  readonly slots: readonly SlotReport[];
  /** Rejected by the authority: they do not count, and the next run replaces them. */
  readonly rejected: readonly (SimulationDocument & { slot: SlotId })[];
  /** review or failed: settle them with `ecf retry ID`; they are not replaced. */
  readonly unsettled: readonly (SimulationDocument & { slot: SlotId })[];
  /** Issued but without a verdict when the wait ran out: the next run waits again. */
  readonly pending: readonly (SimulationDocument & { slot: SlotId })[];
  /** Accepted with conditions: not counted (PASO4_CONDITIONAL_COUNTS); the next run issues another in its place. */
  readonly conditional: readonly (SimulationDocument & { slot: SlotId })[];
  /** The next run starts a new round (a rejection restarted the portal's counters). */
  readonly restartsNext: boolean;
  /** Accepted consumo invoices under DOP 250,000: their full XML goes to the portal's upload box. */
  readonly consumo: readonly { id: string; encf: string }[];
  readonly note: string;
}

type EcfRow = Selectable<EcfTable>;

interface Source {
  readonly file: string | null;
  readonly payload: Record<string, unknown>;
}

const COUNTS = new Set(PASO4_CONDITIONAL_COUNTS ? ['accepted', 'accepted_conditional'] : ['accepted']);
const SETTLED_AGAINST = new Set(['rejected']);
const UNSETTLED = new Set(['review', 'failed']);

const keyOf = (round: number, slot: SlotId, position: number, attempt: number) => `${KEY_PREFIX}:r${round}:${slot}:${position}:${attempt}`;
const KEY = /^certify-paso4:r(\d+):([0-9a-z-]+):(\d+):(\d+)$/;

/** The round of the Paso 4 record (1 when nothing was recorded yet). */
async function recordedRound(engine: Engine, tenantId: string): Promise<number> {
  const c = await getCertification(engine, tenantId);
  const round = c?.pasos[4].detail?.round;
  return typeof round === 'number' && round >= 1 ? round : 1;
}

const rejectedIn = (stored: Map<string, EcfRow[]>): boolean => [...stored.values()].some((rows) => rows.some((r) => r.status === 'rejected'));

/** This round's e-CF, by slot and position, every attempt in order. */
async function roundDocuments(engine: Engine, tenantId: string, round: number): Promise<Map<string, EcfRow[]>> {
  const rows = await engine.db
    .selectFrom('ecf')
    .selectAll()
    .where('tenant_key', '=', await tenantKey(engine.db, tenantId))
    .where('environment', '=', SIMULATION_ENVIRONMENT)
    .where('idempotency_key', 'like', `${KEY_PREFIX}:r${round}:%`)
    .execute();
  const byPosition = new Map<string, EcfRow[]>();
  for (const row of rows) {
    const m = KEY.exec(row.idempotency_key ?? '');
    if (!m || Number(m[1]) !== round) continue;
    const at = `${m[2]}:${m[3]}`;
    byPosition.set(at, [...(byPosition.get(at) ?? []), row]);
  }
  for (const list of byPosition.values()) list.sort((a, b) => attemptOf(a) - attemptOf(b));
  return byPosition;
}

const attemptOf = (row: EcfRow): number => Number(KEY.exec(row.idempotency_key ?? '')?.[4] ?? 0);

/** The e-NCF a stored note modifies, read from its signed XML. */
async function modifiedEncfOf(engine: Engine, ecfId: string): Promise<string | null> {
  const doc = await engine.db
    .selectFrom('ecf')
    .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
    .select(['ecf.id', 'ecf.encf', 'ecf.document_hash', 'ecf_documents.xml', 'ecf_documents.xml_sha256'])
    .where('ecf.id', '=', ecfId)
    .executeTakeFirst();
  if (!doc) return null;
  const xml = await readEcfXml(engine.documents, engine.db, doc);
  return /<NCFModificado>([^<]+)<\/NCFModificado>/.exec(xml.toString('utf8'))?.[1] ?? null;
}

// ---------------------------------------------------------------------------
// Payloads

/** Today's date for validation; notes are checked with a stand-in reference until the real one is known. */
function classify(payload: Record<string, unknown>, today: string): { slot?: SlotId; errors: FieldError[] } {
  const probe = structuredClone(payload);
  const type = Number(probe.type);
  if (type === 33 || type === 34) {
    probe.reference = { ...(probe.reference as object | undefined), modifiedNcf: 'E310000000001', modifiedNcfDate: today };
  }
  const outcome = prepareDocument(probe, { sequenceMode: 'managed', today });
  if (!outcome.document) return { errors: outcome.errors.map((e) => ({ path: e.path, code: e.code, message: e.message })) };
  const doc = outcome.document;
  return { slot: slotOfType(doc.type, takesRfce(doc.type, doc.computed.totals)), errors: [] };
}

/**
 * What the simulation sends in place of a payload as given: no e-NCF or
 * expiry (they come from the `cert` range) and no internalNumber (the same
 * file may fill several positions, and an internalNumber would answer the
 * second with the first e-CF).
 */
function forSimulation(payload: Record<string, unknown>): Record<string, unknown> {
  const { encf: _e, sequenceExpiresOn: _s, internalNumber: _i, ...rest } = payload;
  return rest;
}

/** The folder's payloads by slot, every file checked before anything is issued. */
export function loadPayloadFolder(dir: string, today: string): Map<SlotId, Source[]> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.toLowerCase().endsWith('.json')).sort();
  } catch (err) {
    throw new EngineError('validation', 'Certification.PayloadsUnreadable', `Cannot read the payload folder ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
  }
  const bySlot = new Map<SlotId, Source[]>();
  const errors: FieldError[] = [];
  for (const name of names) {
    const file = join(dir, name);
    if (!statSync(file).isFile()) continue;
    let payload: unknown;
    try {
      payload = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
    } catch (err) {
      errors.push({ path: name, code: 'Certification.PayloadNotJson', message: `is not JSON: ${(err as Error).message}` });
      continue;
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      errors.push({ path: name, code: 'Certification.PayloadNotObject', message: 'must hold one issue payload (a JSON object)' });
      continue;
    }
    const cleaned = forSimulation(payload as Record<string, unknown>);
    const { slot, errors: invalid } = classify(cleaned, today);
    if (!slot) {
      errors.push(...invalid.map((e) => ({ path: `${name}: ${e.path}`, code: e.code, message: e.message })));
      continue;
    }
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), { file: name, payload: cleaned }]);
  }
  if (errors.length) throw new ValidationError(errors, `${errors.length} problem(s) in the payload folder ${dir}; nothing was issued.`);
  if (bySlot.size === 0) throw new EngineError('validation', 'Certification.NoPayloads', `The payload folder ${dir} holds no .json payload.`);
  return bySlot;
}

const examplesOf = (slot: SlotId): Source[] => (SIMULATION_EXAMPLES[slot] ?? []).map((payload) => ({ file: null, payload }));

/** The type a note's payload asks to modify ("E31…" → 31), 31 when it names none. */
function targetTypeOf(payload: Record<string, unknown>): number {
  const ncf = (payload.reference as { modifiedNcf?: unknown } | undefined)?.modifiedNcf;
  const m = typeof ncf === 'string' ? /^E(\d{2})/.exec(ncf) : null;
  return m ? Number(m[1]) : 31;
}

// ---------------------------------------------------------------------------
// Ranges

const sequentialOf = (encf: string): number => Number(encf.slice(3));

/**
 * Makes sure each type about to be issued has a `cert` range to draw from,
 * above every e-NCF the Paso 2 workbook and earlier issuing used: the portal
 * never accepts a sequence twice (§1.2 Paso 4). An existing range that
 * would hand out such a number is refused rather than used.
 */
async function ensureRanges(engine: Engine, tenantId: string, types: ReadonlySet<number>): Promise<SimulationReport['rangesAdded']> {
  const added: { type: number; rangeFrom: number; rangeTo: number; expiresOn: string | null }[] = [];
  const today = dominicanDate(engine.clock.now());
  const cases = await engine.db
    .selectFrom('certification_cases')
    .select(['encf', 'cells'])
    .where('tenant_id', '=', tenantId)
    .where('paso', '=', 2)
    .execute();
  for (const type of [...types].sort((a, b) => a - b)) {
    const prefix = `E${type}`;
    const paso2 = cases.filter((c) => c.encf.startsWith(prefix) && /^E\d{12}$/.test(c.encf));
    const highestPaso2 = Math.max(0, ...paso2.map((c) => sequentialOf(c.encf)));
    const ranges = await engine.db
      .selectFrom('sequence_ranges')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('environment', '=', SIMULATION_ENVIRONMENT)
      .where('type', '=', type)
      .orderBy('range_from')
      .execute();
    const open = ranges.find((r) => r.active === 1 && r.next <= r.range_to && (r.expires_on === null || r.expires_on >= today));
    if (open) {
      if (open.next <= highestPaso2) {
        throw new EngineError(
          'conflict',
          'Certification.RangeReusesPaso2',
          `The cert range ${open.range_from}–${open.range_to} of type ${type} would hand out E${type}${String(open.next).padStart(10, '0')} next, at or below ${prefix}${String(highestPaso2).padStart(10, '0')} that the Paso 2 workbook used; the portal wants new sequences. The authority refuses an annulment of used numbers (1105): move the range's next number past them (\`ecf sequence next --env cert --type ${type} --set ${highestPaso2 + 1}\`).`,
        );
      }
      continue;
    }
    const issued = await engine.db
      .selectFrom('ecf')
      .select((eb) => eb.fn.max('encf').as('encf'))
      .where('tenant_key', '=', await tenantKey(engine.db, tenantId))
      .where('environment', '=', SIMULATION_ENVIRONMENT)
      .where('type', '=', type)
      .executeTakeFirst();
    const from = Math.max(highestPaso2, issued?.encf ? sequentialOf(issued.encf) : 0, ...ranges.map((r) => r.range_to)) + 1;
    const to = Math.min(CERTIFICATION_RANGE_TO, MAX_SEQUENTIAL);
    if (from > to) {
      throw new EngineError('conflict', 'Certification.RangeExhausted', `Type ${type} has no certification sequence left: ${prefix}${String(from - 1).padStart(10, '0')} is already used and the portal's range ends at ${to}.`);
    }
    const expiresOn = NON_EXPIRING.has(type) ? null : expiryFor(paso2.map((c) => c.cells), today);
    await addRange(engine, { tenantId, environment: SIMULATION_ENVIRONMENT, type, rangeFrom: from, rangeTo: to, expiresOn });
    added.push({ type, rangeFrom: from, rangeTo: to, expiresOn });
  }
  return added;
}

/** The workbook's FechaVencimientoSecuencia (dd-mm-yyyy) when it has one still ahead, else the set's usual date, else the end of next year. */
function expiryFor(cells: readonly string[], today: string): string {
  for (const json of cells) {
    let text: unknown;
    try {
      // Headers are kept as written, trailing spaces included.
      text = Object.entries(JSON.parse(json) as Record<string, unknown>).find(([k]) => k.trim() === 'FechaVencimientoSecuencia')?.[1];
    } catch {
      continue;
    }
    const m = typeof text === 'string' ? /^(\d{2})-(\d{2})-(\d{4})$/.exec(text.trim()) : null;
    if (m && `${m[3]}-${m[2]}-${m[1]}` > today) return `${m[3]}-${m[2]}-${m[1]}`;
  }
  if (DEFAULT_RANGE_EXPIRY > today) return DEFAULT_RANGE_EXPIRY;
  return `${Number(today.slice(0, 4)) + 1}-12-31`;
}

// ---------------------------------------------------------------------------
// The run

interface Position {
  readonly slot: SimulationSlot;
  readonly position: number;
  /** Every attempt, oldest first. */
  rows: EcfRow[];
  issuedNow: Set<string>;
  modifies: Map<string, string>;
}

const latest = (p: Position): EcfRow | undefined => p.rows[p.rows.length - 1];

function stateOf(p: Position): PositionState {
  const row = latest(p);
  if (!row) return 'missing';
  if (COUNTS.has(row.status)) return 'accepted';
  if (row.status === 'accepted_conditional') return 'conditional';
  if (SETTLED_AGAINST.has(row.status)) return 'rejected';
  if (UNSETTLED.has(row.status)) return 'unsettled';
  return 'pending';
}

/**
 * Each e-CF's send and status queries, done here in this process as
 * `issuing.wait_for_verdict_seconds` does, as many at once as
 * `taxauth.concurrency` allows calls to the authority.
 */
async function driveToVerdicts(
  engine: Engine,
  tenantId: string,
  rows: readonly EcfRow[],
  seconds: number,
  pace: Pace | undefined,
  onVerdict: (view: EcfView) => void,
): Promise<Map<string, EcfView>> {
  const concurrency = await getSetting(engine, 'taxauth.concurrency');
  const out = new Map<string, EcfView>();
  const queue = [...rows];
  const worker = async () => {
    for (let row = queue.shift(); row; row = queue.shift()) {
      const view = await waitForVerdict(engine, tenantId, row.id, seconds, pace);
      out.set(row.id, view);
      onVerdict(view);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
  return out;
}

async function reload(engine: Engine, tenantId: string, row: EcfRow): Promise<EcfRow> {
  return (await engine.db.selectFrom('ecf').selectAll().where('tenant_key', '=', await tenantKey(engine.db, tenantId)).where('id', '=', row.id).executeTakeFirst()) ?? row;
}

export async function runSimulation(engine: Engine, tenantId: string, options: SimulationOptions = {}): Promise<SimulationReport> {
  await requireCertification(engine, tenantId);
  // Everything missing is told at once, before anything is issued.
  const needs = await paso4Needs(engine, tenantId);
  if (needs.length) {
    throw new EngineError(
      'conflict',
      'Certification.Paso4NotReady',
      ['Paso 4 cannot start yet; nothing was issued:', ...needs.map((n) => `- ${n.message} Run: ${n.fix}`)].join('\n'),
    );
  }
  const today = dominicanDate(engine.clock.now());
  const folder = options.payloadDir ? loadPayloadFolder(options.payloadDir, today) : new Map<SlotId, Source[]>();
  const sourceOf = (slot: SlotId): { list: Source[]; from: 'payloads' | 'examples' } => {
    const given = folder.get(slot);
    return given?.length ? { list: given, from: 'payloads' } : { list: examplesOf(slot), from: 'examples' };
  };
  const waitSeconds = options.waitSeconds ?? 300;

  let round = (await recordedRound(engine, tenantId)) + (options.restart ? 1 : 0);
  let stored = await roundDocuments(engine, tenantId, round);
  if (PASO4_REJECTION_RESTARTS && rejectedIn(stored)) {
    round += 1;
    stored = await roundDocuments(engine, tenantId, round);
  }
  const positions: Position[] = SIMULATION_SLOTS.flatMap((slot) =>
    Array.from({ length: slot.quota }, (_, i) => ({ slot, position: i + 1, rows: stored.get(`${slot.id}:${i + 1}`) ?? [], issuedNow: new Set<string>(), modifies: new Map<string, string>() })),
  );
  const acceptedCount = () => positions.filter((p) => stateOf(p) === 'accepted').length;
  const tell = (event: string) => options.onProgress?.({ accepted: acceptedCount(), total: SIMULATION_QUOTA, event });
  await recordPaso(engine, tenantId, 4, { state: 'in_progress', note: `Simulation round ${round}: issuing the quota in cert.`, detail: { round } });

  const toIssue = (p: Position) => ['missing', 'rejected', 'conditional'].includes(stateOf(p));
  const types = new Set(positions.filter(toIssue).map((p) => p.slot.type));
  const rangesAdded = types.size ? await ensureRanges(engine, tenantId, types) : [];

  const issue = async (p: Position, source: Source, payload: Record<string, unknown>): Promise<void> => {
    const attempt = (latest(p) ? attemptOf(latest(p)!) : 0) + 1;
    const key = keyOf(round, p.slot.id, p.position, attempt);
    const { ecf } = await issueEcf(engine, tenantId, { idempotencyKey: key, payload, environment: SIMULATION_ENVIRONMENT }).catch((e: unknown) => {
      // What was issued before stays counted; the person needs to know which payload failed.
      if (!(e instanceof EngineError)) throw e;
      const what = `Slot "${p.slot.label}", e-CF ${p.position} of ${p.slot.quota} (${source.file ?? 'built-in example'})`;
      const wrapped = e instanceof ValidationError ? new ValidationError(e.errors, `${what}: ${e.message}`) : new EngineError(e.kind, e.code, `${what}: ${e.message}`);
      throw wrapped;
    });
    const row = await engine.db.selectFrom('ecf').selectAll().where('tenant_key', '=', await tenantKey(engine.db, tenantId)).where('id', '=', ecf.id).executeTakeFirstOrThrow();
    p.rows = [...p.rows, row];
    p.issuedNow.add(row.id);
    tell(`issued ${ecf.encf} (${p.slot.label}, ${p.position}/${p.slot.quota})`);
  };
  const wait = async (ps: readonly Position[]) => {
    const open = ps.filter((p) => stateOf(p) === 'pending');
    const views = await driveToVerdicts(engine, tenantId, open.map((p) => latest(p)!), waitSeconds, options.pace, (v) => tell(`${v.encf}: ${v.status}`));
    for (const p of open) {
      const row = latest(p)!;
      if (views.has(row.id)) p.rows = [...p.rows.slice(0, -1), await reload(engine, tenantId, row)];
    }
  };

  // Ordinary e-CF and the consumo invoices first, each open position once per run.
  const ordinary = positions.filter((p) => !p.slot.note);
  for (const p of ordinary.filter(toIssue)) {
    const { list } = sourceOf(p.slot.id);
    const source = list[(p.position - 1) % list.length]!;
    await issue(p, source, structuredClone(source.payload));
  }
  await wait(ordinary);
  const restarted = () => PASO4_REJECTION_RESTARTS && positions.some((p) => p.rows.some((r) => r.status === 'rejected'));

  // Notes last, each modifying an accepted e-CF of this round that no other note modifies.
  const notes = positions.filter((p) => p.slot.note);
  const taken = new Set<string>();
  for (const p of notes) {
    for (const row of p.rows) {
      const m = await modifiedEncfOf(engine, row.id);
      if (m) {
        p.modifies.set(row.id, m);
        if (!SETTLED_AGAINST.has(row.status)) taken.add(m);
      }
    }
  }
  const waiting = new Map<SlotId, string>();
  // §2.7: notes only once everything sent before is final, none of it rejected or still in process.
  const unfinished = ordinary.filter((p) => ['pending', 'unsettled'].includes(stateOf(p))).map((p) => latest(p)!.encf);
  for (const p of notes.filter(toIssue)) {
    if (restarted()) break;
    if (unfinished.length) {
      waiting.set(p.slot.id, `waits until every e-CF sent before has a final verdict (${unfinished.join(', ')} not yet)`);
      continue;
    }
    const { list } = sourceOf(p.slot.id);
    const source = list[(p.position - 1) % list.length]!;
    const payload = structuredClone(source.payload);
    const targetType = targetTypeOf(payload);
    const candidates = positions
      .filter((o) => !o.slot.note && o.slot.type === targetType && stateOf(o) === 'accepted')
      .map((o) => latest(o)!)
      .filter((row) => !taken.has(row.encf));
    // Any accepted one when each was already modified once: a second note on the same e-CF is still valid.
    const original = candidates[0] ?? positions.filter((o) => !o.slot.note && o.slot.type === targetType && stateOf(o) === 'accepted').map((o) => latest(o)!)[0];
    if (!original) {
      waiting.set(p.slot.id, `waits for an accepted type ${targetType} e-CF of the simulation to modify`);
      continue;
    }
    taken.add(original.encf);
    payload.reference = { ...(payload.reference as object | undefined), modifiedNcf: original.encf, modifiedNcfDate: original.issue_date };
    await issue(p, source, payload);
    p.modifies.set(latest(p)!.id, original.encf);
  }
  await wait(notes);

  return report(engine, tenantId, round, positions, rangesAdded, waiting, restarted(), (slot) => sourceOf(slot).from);
}

async function report(
  engine: Engine,
  tenantId: string,
  round: number,
  positions: readonly Position[],
  rangesAdded: SimulationReport['rangesAdded'],
  waiting: ReadonlyMap<SlotId, string>,
  restartsNext: boolean,
  sourceFrom: (slot: SlotId) => 'payloads' | 'examples',
): Promise<SimulationReport> {
  const docOf = (p: Position, row: EcfRow): SimulationDocument => {
    const taxauth = taxauthOf(row.taxauth);
    const modifies = p.modifies.get(row.id);
    return {
      position: p.position,
      attempt: attemptOf(row),
      id: row.id,
      encf: row.encf,
      status: row.status,
      issuedNow: p.issuedNow.has(row.id),
      ...(modifies && { modifies }),
      ...(taxauth?.messages?.length && { messages: taxauth.messages }),
    };
  };
  const slots: SlotReport[] = SIMULATION_SLOTS.map((slot) => {
    const ps = positions.filter((p) => p.slot.id === slot.id);
    return {
      slot: slot.id,
      label: slot.label,
      type: slot.type,
      quota: slot.quota,
      accepted: ps.filter((p) => stateOf(p) === 'accepted').length,
      source: sourceFrom(slot.id),
      documents: ps.flatMap((p) => p.rows.map((row) => docOf(p, row))),
      ...(waiting.has(slot.id) && { waiting: waiting.get(slot.id) }),
    };
  });
  const latestOf = (state: PositionState) =>
    positions.filter((p) => stateOf(p) === state).map((p) => ({ ...docOf(p, latest(p)!), slot: p.slot.id }));
  const rejected = latestOf('rejected');
  const unsettled = latestOf('unsettled');
  const pending = latestOf('pending');
  const conditional = latestOf('conditional');
  const rejectedAll = positions.flatMap((p) => p.rows.filter((row) => row.status === 'rejected').map((row) => ({ ...docOf(p, row), slot: p.slot.id })));
  const accepted = positions.filter((p) => stateOf(p) === 'accepted').length;
  const complete = accepted === SIMULATION_QUOTA;
  const consumo = positions.filter((p) => p.slot.id === '32-rfce' && stateOf(p) === 'accepted').map((p) => ({ id: latest(p)!.id, encf: latest(p)!.encf }));
  const note = complete
    ? `All ${SIMULATION_QUOTA} simulation e-CF accepted. Upload the ${consumo.length} full consumo XMLs in the portal's "Facturas de consumo < 250Mil" box (\`ecf certify simulate --consumo-out DIR\` writes them), then render the printed representations (\`ecf certify print\`).`
    : [
        `${accepted}/${SIMULATION_QUOTA} accepted.`,
        restartsNext
          ? `${rejectedAll.length} rejected by the authority (${rejectedAll.map((d) => d.encf).join(', ')}): a rejected e-CF does not count, and the portal restarts the simulation counters on a rejection, so no notes were sent; fix the payload, then run \`ecf certify simulate\` again: it starts round ${round + 1} and issues the whole quota again with new e-NCFs.`
          : rejected.length
            ? `${rejected.length} rejected by the authority: they do not count; run \`ecf certify simulate\` again to issue new ones in their place (fix the payload first).`
            : '',
        conditional.length ? `${conditional.length} accepted with conditions, which may not count: the next run issues others in their place.` : '',
        unsettled.length ? `${unsettled.length} without a final verdict (review or failed): settle them with \`ecf retry ID\`.` : '',
        pending.length ? `${pending.length} still waiting for a verdict: run \`ecf certify simulate\` again to keep waiting.` : '',
        waiting.size ? `Notes ${[...waiting.keys()].join(', ')} wait for an accepted e-CF to modify.` : '',
      ]
        .filter(Boolean)
        .join(' ');
  const detail = {
    round,
    accepted,
    total: SIMULATION_QUOTA,
    slots: Object.fromEntries(
      slots.map((s) => [s.slot, { label: s.label, quota: s.quota, accepted: s.accepted, ids: s.documents.map((d) => d.id), encfs: s.documents.map((d) => `${d.encf} ${d.status}`) }]),
    ),
    rejected: rejectedAll.map((d) => d.id),
    restartsNext,
  };
  await recordPaso(engine, tenantId, 4, { state: complete ? 'done' : restartsNext ? 'failed' : 'in_progress', note, detail });
  return {
    tenantId,
    round,
    complete,
    accepted,
    total: SIMULATION_QUOTA,
    issuedNow: positions.reduce((n, p) => n + p.issuedNow.size, 0),
    rangesAdded,
    slots,
    rejected: restartsNext ? rejectedAll : rejected,
    unsettled,
    pending,
    conditional,
    restartsNext,
    consumo,
    note,
  };
}

/**
 * The accepted simulation e-CF of each slot, those of the latest round
 * first (for the printed representations of Paso 5: any e-CF the authority
 * accepted in Paso 4 is one the portal knows).
 */
export async function acceptedSimulationDocuments(engine: Engine, tenantId: string): Promise<Map<SlotId, EcfView[]>> {
  const rows = await engine.db
    .selectFrom('ecf')
    .selectAll()
    .where('tenant_key', '=', await tenantKey(engine.db, tenantId))
    .where('environment', '=', SIMULATION_ENVIRONMENT)
    .where('idempotency_key', 'like', `${KEY_PREFIX}:r%`)
    .where('status', 'in', [...COUNTS])
    .execute();
  const parsed = rows
    .map((row) => ({ row, m: KEY.exec(row.idempotency_key ?? '') }))
    .filter((x): x is { row: EcfRow; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(b.m[1]) - Number(a.m[1]) || Number(a.m[3]) - Number(b.m[3]) || Number(a.m[4]) - Number(b.m[4]));
  const out = new Map<SlotId, EcfView[]>(SIMULATION_SLOTS.map((s) => [s.id, []]));
  for (const { row, m } of parsed) out.get(m[2] as SlotId)?.push(await getEcf(engine, tenantId, row.id));
  return out;
}

/** The portal's upload name of an accepted consumo invoice's full XML. */
export const consumoFileName = uploadFileName;
