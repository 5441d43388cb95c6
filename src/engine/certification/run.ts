import { signingCredentials } from '../certificates/certificates.js';
import { toStoredInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { signingKey, type SigningKey } from '../signing/xmldsig.js';
import { inTransaction } from '../store/database.js';
import { TaxauthError } from '../taxauth/errors.js';
import type { TaxauthClient } from '../taxauth/client.js';
import { isDefiniteRefusal } from '../taxauth/conversation.js';
import type { TaxauthMessage } from '../taxauth/types.js';
import { buildCaseDocument } from './build.js';
import { caseXml, loadCases, portalCounts, type CaseRow, type PortalCounts } from './cases.js';
import { nextStep, type CaseState } from './plan.js';
import {
  CONDITIONAL_COUNTS_AS_ACCEPTED,
  POLL_GIVE_UP_MS,
  POLL_INTERVALS_MS,
  RESEND_CODES,
  RESET_EXPLANATION,
  SEQUENCE_USED_CODE,
  SEQUENCE_USED_COUNTS_AS_ACCEPTED,
  settleAfterMs,
} from './rules.js';
import { recordPasoIn, requireCertification } from './state.js';
import { claimRun, type RunClaim } from './run-claim.js';

/**
 * Runs a certification set (Paso 2: e-CF and RFCE; Paso 3: commercial
 * approvals) against the authority's certification environment, one step at
 * a time, each step's result recorded before the next network call:
 *
 *   prepare  every case is built verbatim from its row, signed and checked
 *            against its XSD before the first send, in one transaction;
 *   settle   a case left `sending` by a run that died is asked about before
 *            it is sent again (consultatrackids; the RFCE's status), so a
 *            resumed run never sends a case twice;
 *   send     the next phase of plan.ts, case by case;
 *   poll     verdicts of what was sent, until final.
 *
 * It stops at the first rejection, with the authority's messages and the
 * row. Everything it knows is in the store, so running it again resumes.
 */

export const CERT_ENVIRONMENT = 'cert' as const;

export type RunOutcome =
  /** Every case accepted. */
  | 'done'
  /** A case was rejected: the set must be imported and run again (RESET_EXPLANATION). */
  | 'stopped'
  /** Verdicts still pending after POLL_GIVE_UP_MS, or the authority unreachable: run again later. */
  | 'waiting'
  /** Notes whose original e-CF is not accepted. */
  | 'blocked'
  /** Interrupted (Ctrl-C); running again resumes. */
  | 'interrupted';

export interface CaseReport {
  readonly sheet: string;
  readonly row: number;
  readonly caseId: string;
  readonly encf: string;
  readonly kind: string;
  readonly state: CaseState;
  readonly messages: readonly { code: number; value: string }[];
}

export interface RunResult {
  readonly paso: 2 | 3;
  readonly generation: number;
  readonly outcome: RunOutcome;
  readonly counts: PortalCounts;
  readonly rejected: readonly CaseReport[];
  /** One paragraph for the person: what happened, what to do next. */
  readonly note: string;
}

export type RunEvent =
  | { readonly type: 'prepared'; readonly count: number }
  /** Cases a run that died left `sending`: asked about at `until` (three client timeouts after their send), not before. */
  | { readonly type: 'settling'; readonly encfs: readonly string[]; readonly until: string; readonly waitMs: number }
  | { readonly type: 'sent'; readonly case: CaseReport }
  | { readonly type: 'verdict'; readonly case: CaseReport; readonly counts: PortalCounts };

export interface RunOptions {
  readonly paso: 2 | 3;
  readonly onEvent?: (event: RunEvent) => void;
  /** Waiting between polls; tests pass one that moves their clock. */
  readonly wait?: (ms: number) => Promise<void>;
  readonly signal?: AbortSignal;
}

/** Calls in a row that could not reach the authority before the run stops and says "run again later". */
const MAX_TRANSPORT_FAILURES = 5;
const realWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const report = (c: CaseRow): CaseReport => ({ sheet: c.sheet, row: c.row, caseId: c.caseId, encf: c.encf, kind: c.kind, state: c.state, messages: c.messages });

export async function runCertificationSet(engine: Engine, tenantId: string, options: RunOptions): Promise<RunResult> {
  const { paso } = options;
  await requireCertification(engine, tenantId);
  const tenant = await engine.db.selectFrom('tenants').select(['rnc']).where('id', '=', tenantId).executeTakeFirstOrThrow();
  const cases = await loadCases(engine, tenantId, paso);
  if (cases.length === 0) {
    throw new EngineError('conflict', 'Certification.NothingImported', `No Paso ${paso} workbook is imported for this tenant: run \`ecf certify import <workbook.xlsx>\` first.`);
  }
  const generation = cases[0]!.generation;
  const emit = options.onEvent ?? (() => {});
  const client = await engine.taxauth.client(CERT_ENVIRONMENT);
  const withToken = <T>(fn: (token: string) => Promise<T>) => engine.taxauth.withToken(tenantId, CERT_ENVIRONMENT, fn);
  const ctx: Ctx = { engine, tenantId, rnc: tenant.rnc, client, withToken, emit, paso };
  // Held as long as the slowest step may take without a renewal; a dead pid on this machine frees it at once.
  const claim = await claimRun(engine, tenantId, paso, settleAfterMs(client.timeoutMs) + 60_000);
  try {
    // Read again under the claim: a run that just ended may have moved them.
    return await runClaimed(ctx, await loadCases(engine, tenantId, paso, generation), generation, options, claim);
  } finally {
    await claim.release();
  }
}

async function runClaimed(ctx: Ctx, loaded: readonly CaseRow[], generation: number, options: RunOptions, claim: RunClaim): Promise<RunResult> {
  const { engine, tenantId, paso, client, emit } = ctx;
  const wait = options.wait ?? realWait;
  let cases = loaded;
  if (cases.some((c) => c.state === 'imported')) {
    const creds = await signingCredentials(engine, tenantId);
    await prepare(ctx, cases, signingKey(creds.privateKey, creds.certificate));
    cases = await loadCases(engine, tenantId, paso, generation);
  }

  let waitedSince: number | null = null;
  let failures = 0;
  let pollRung = 0;
  let settleTold = false;
  for (;;) {
    if (options.signal?.aborted) return finish(ctx, cases, 'interrupted');
    await claim.renew();
    const sending = cases.filter((c) => c.state === 'sending');
    if (sending.length > 0) {
      const now = engine.clock.now().getTime();
      const after = settleAfterMs(client.timeoutMs);
      const youngest = Math.max(...sending.map((c) => Date.parse(c.sentAt ?? '') || now));
      if (now - youngest < after) {
        // Said once, so the wait is not a silence.
        if (!settleTold) emit({ type: 'settling', encfs: sending.map((c) => c.encf), until: new Date(youngest + after).toISOString(), waitMs: after - (now - youngest) });
        settleTold = true;
        await wait(Math.min(after - (now - youngest), 1000));
        continue;
      }
      for (const c of sending) if (!(await settle(ctx, c, generation))) failures++;
      if (failures >= MAX_TRANSPORT_FAILURES) return finish(ctx, await loadCases(engine, tenantId, paso, generation), 'waiting');
      cases = await loadCases(engine, tenantId, paso, generation);
      continue;
    }
    const step = nextStep(cases);
    if (step.kind === 'done') return finish(ctx, cases, 'done');
    if (step.kind === 'blocked') return finish(ctx, cases, 'blocked');
    if (step.kind === 'stopped') {
      // Verdicts of what is already sent are still recorded, so the report is whole.
      const pending = cases.filter((c) => c.state === 'sent');
      if (pending.length === 0) return finish(ctx, cases, 'stopped');
      await pollAll(ctx, pending);
      cases = await loadCases(engine, tenantId, paso, generation);
      if (cases.some((c) => c.state === 'sent')) return finish(ctx, cases, 'stopped');
      continue;
    }
    if (step.kind === 'wait') {
      waitedSince ??= engine.clock.now().getTime();
      const before = cases.filter((c) => c.state === 'sent').length;
      await pollAll(ctx, step.pending.filter((c) => c.state === 'sent'));
      cases = await loadCases(engine, tenantId, paso, generation);
      if (cases.filter((c) => c.state === 'sent').length === before) {
        if (engine.clock.now().getTime() - waitedSince > POLL_GIVE_UP_MS) return finish(ctx, cases, 'waiting');
        await wait(POLL_INTERVALS_MS[Math.min(pollRung++, POLL_INTERVALS_MS.length - 1)]!);
      } else pollRung = 0;
      continue;
    }
    waitedSince = null;
    pollRung = 0;
    let current = cases;
    for (const c of step.cases) {
      if (options.signal?.aborted) break;
      // The authority judges e-CF apart from their sends: ask about those still out first, and send
      // nothing more once one is rejected (it restarts the set). What may still go out after a
      // rejection is only what was sent while its verdict was not given yet.
      const out = c.kind !== 'rfce' && c.kind !== 'acecf' ? current.filter((x) => x.state === 'sent') : [];
      if (out.length > 0) {
        await pollAll(ctx, out);
        current = await loadCases(engine, tenantId, paso, generation);
        if (current.some((x) => x.state === 'rejected')) break;
      }
      // Not reached: the case stays `sending` and is settled (asked about) before anything else.
      if (!(await send(ctx, c))) {
        failures++;
        break;
      }
      failures = 0;
      // A synchronous rejection (RFCE, approval) stops the phase at once.
      current = await loadCases(engine, tenantId, paso, generation);
      if (current.some((x) => x.state === 'rejected')) break;
    }
    cases = await loadCases(engine, tenantId, paso, generation);
  }
}

interface Ctx {
  readonly engine: Engine;
  readonly tenantId: string;
  readonly rnc: string;
  readonly client: TaxauthClient;
  readonly withToken: <T>(fn: (token: string) => Promise<T>) => Promise<T>;
  readonly emit: (event: RunEvent) => void;
  readonly paso: 2 | 3;
}

/**
 * Builds and signs every case not yet built, in one transaction. The full
 * consumo 32s are signed before their RFCE, which carries their security
 * code. Nothing is written when any case fails its XSD (import already
 * checked, so this is a safety net).
 */
async function prepare(ctx: Ctx, cases: readonly CaseRow[], key: SigningKey): Promise<void> {
  const now = ctx.engine.clock.now();
  const built = new Map<string, { xml: string; securityCode: string | null }>();
  const codes = new Map<string, string>();
  for (const c of cases) if (c.securityCode && c.kind === 'ecf32') codes.set(c.encf, c.securityCode);
  const ordered = [...cases].sort((a, b) => Number(a.kind === 'rfce') - Number(b.kind === 'rfce'));
  for (const c of ordered) {
    if (c.state !== 'imported') continue;
    const securityCode = c.kind === 'rfce' ? codes.get(c.encf) : undefined;
    if (c.kind === 'rfce' && !securityCode) {
      throw new EngineError('validation', 'Certification.RfceWithoutEcf', `RFCE row ${c.row} (${c.encf}): no type-32 row of the ECF sheet has this e-NCF, so there is no security code to put in it.`);
    }
    const doc = buildCaseDocument({ kind: c.kind, cells: c.cells, row: c.row, sheet: c.sheet }, key, now, securityCode);
    built.set(c.id, doc);
    if (c.kind === 'ecf32' && doc.securityCode) codes.set(c.encf, doc.securityCode);
  }
  const at = toStoredInstant(now);
  // Compressed before the transaction, on the thread pool.
  const documents = new Map(await Promise.all([...built].map(async ([id, doc]) => [id, await ctx.engine.documents.prepare(Buffer.from(doc.xml, 'utf8'))] as const)));
  const stored = await inTransaction(ctx.engine.db, async (tx) => {
    let count = 0;
    for (const c of cases) {
      const doc = built.get(c.id);
      if (!doc) continue;
      const document = await ctx.engine.documents.store(tx, documents.get(c.id)!);
      const r = await tx
        .updateTable('certification_cases')
        .set({ state: c.phase === 'upload' ? 'upload' : 'prepared', xml: document.blob, xml_sha256: document.sha256, security_code: doc.securityCode, updated_at: at })
        .where('id', '=', c.id)
        .where('state', '=', 'imported')
        .executeTakeFirst();
      count += Number(r.numUpdatedRows);
    }
    await recordPasoIn(tx, ctx.tenantId, ctx.paso, { state: 'in_progress', note: `${count} documents built, signed and checked against their XSD.` }, now);
    return count;
  });
  // What this run stored, not what it built: another run may have stored them first.
  ctx.emit({ type: 'prepared', count: stored });
}

/** Moves a case from `from` to `state`, with the given columns; false when another run moved it first. */
async function move(ctx: Ctx, c: CaseRow, from: CaseState, state: CaseState, set: { track_id?: string | null; messages?: readonly TaxauthMessage[]; sent?: boolean; verdict?: boolean } = {}): Promise<boolean> {
  const now = ctx.engine.clock.now();
  const at = toStoredInstant(now);
  return inTransaction(ctx.engine.db, async (tx) => {
    const r = await tx
      .updateTable('certification_cases')
      .set({
        state,
        updated_at: at,
        ...(set.track_id !== undefined && { track_id: set.track_id }),
        ...(set.messages !== undefined && { messages: JSON.stringify(set.messages) }),
        ...(set.sent && { sent_at: at }),
        ...(set.verdict && { verdict_at: at }),
      })
      .where('id', '=', c.id)
      .where('state', '=', from)
      .executeTakeFirst();
    const moved = Number(r.numUpdatedRows) === 1;
    if (moved && (state === 'accepted' || state === 'rejected')) {
      const all = await loadCases({ db: tx }, ctx.tenantId, ctx.paso, c.generation);
      const counts = ctx.paso === 2 ? portalCounts(all, []) : portalCounts([], all);
      await recordPasoIn(tx, ctx.tenantId, ctx.paso, { state: state === 'rejected' ? 'failed' : 'in_progress', detail: { counts } }, now);
    }
    return moved;
  });
}

/** A verdict: accepted, rejected (with 1209 and conditional acceptances as rules.ts says), or null while pending. */
function verdictState(code: number, messages: readonly TaxauthMessage[]): CaseState | null {
  if (code === 1) return 'accepted';
  if (code === 2 && messages.length > 0 && messages.every((m) => RESEND_CODES.has(m.code))) return 'prepared';
  if (code === 4) return CONDITIONAL_COUNTS_AS_ACCEPTED ? 'accepted' : 'rejected';
  if (code === 2) {
    const used = messages.some((m) => m.code === SEQUENCE_USED_CODE);
    return used && SEQUENCE_USED_COUNTS_AS_ACCEPTED ? 'accepted' : 'rejected';
  }
  return null;
}

async function record(ctx: Ctx, c: CaseRow, from: CaseState, code: number, messages: readonly TaxauthMessage[], trackId?: string): Promise<void> {
  const state = verdictState(code, messages);
  if (!state) return;
  if (state === 'prepared') return void (await move(ctx, c, from, 'prepared', { messages, track_id: null }));
  await move(ctx, c, from, state, { messages, verdict: true, ...(trackId !== undefined && { track_id: trackId }) });
  const all = await loadCases(ctx.engine, ctx.tenantId, ctx.paso, c.generation);
  const now = all.find((x) => x.id === c.id)!;
  ctx.emit({ type: 'verdict', case: report(now), counts: ctx.paso === 2 ? portalCounts(all, []) : portalCounts([], all) });
}

/** Sends one case; false when the authority could not be reached (the case stays `sending`, to be settled). */
async function send(ctx: Ctx, c: CaseRow): Promise<boolean> {
  if (!(await move(ctx, c, 'prepared', 'sending', { sent: true }))) return true;
  const upload = { rnc: c.kind === 'acecf' ? (c.cells['RNCEmisor'] ?? ctx.rnc) : ctx.rnc, encf: c.encf, xml: await caseXml(ctx.engine, c) };
  const sending = { ...c, state: 'sending' as const };
  try {
    if (c.kind === 'rfce') {
      const v = await ctx.withToken((t) => ctx.client.sendRfce(t, upload));
      await record(ctx, sending, 'sending', v.code, v.messages);
    } else if (c.kind === 'acecf') {
      const v = await ctx.withToken((t) => ctx.client.sendCommercialApproval(t, upload));
      await record(ctx, sending, 'sending', v.code === 1 ? 1 : 2, v.messages.map((value) => ({ code: 0, value })));
    } else {
      const { trackId } = await ctx.withToken((t) => ctx.client.sendEcf(t, upload));
      await move(ctx, sending, 'sending', 'sent', { track_id: trackId });
    }
  } catch (e) {
    if (e instanceof TaxauthError && isDefiniteRefusal(e)) {
      // A definite refusal of the document itself: the authority's words are the rejection.
      await record(ctx, sending, 'sending', 2, [{ code: e.status ?? 0, value: e.message }]);
      return true;
    }
    return false;
  }
  ctx.emit({ type: 'sent', case: report({ ...c, state: 'sent' }) });
  return true;
}

/**
 * A case a dead run left `sending`: did the authority get it? An e-CF by its
 * submissions (consultatrackids), ignoring trackIds earlier generations
 * recorded; an RFCE by its status. An approval has no query: it is sent
 * again (the authority answers a repeat with its own message).
 */
async function settle(ctx: Ctx, c: CaseRow, generation: number): Promise<boolean> {
  try {
    if (c.kind === 'rfce') {
      const s = await ctx.withToken((t) => ctx.client.status(t, { rnc: ctx.rnc, encf: c.encf, securityCode: c.securityCode }));
      if (s.code === 1 || s.code === 4) return (await record(ctx, c, 'sending', s.code, [])), true;
    } else if (c.kind !== 'acecf') {
      const earlier = await ctx.engine.db
        .selectFrom('certification_cases')
        .select('track_id')
        .where('tenant_id', '=', ctx.tenantId)
        .where('encf', '=', c.encf)
        .where('generation', '<', generation)
        .where('track_id', 'is not', null)
        .execute();
      const old = new Set(earlier.map((r) => r.track_id));
      const entries = (await ctx.withToken((t) => ctx.client.trackIds(t, ctx.rnc, c.encf))).filter((e) => !old.has(e.trackId));
      const last = entries.at(-1);
      if (last) return (await move(ctx, c, 'sending', 'sent', { track_id: last.trackId })), true;
    }
  } catch (e) {
    if (e instanceof TaxauthError && e.transient) return false;
    throw e;
  }
  await move(ctx, c, 'sending', 'prepared');
  return true;
}

async function pollAll(ctx: Ctx, sent: readonly CaseRow[]): Promise<void> {
  for (const c of sent) {
    try {
      const v = await ctx.withToken((t) => ctx.client.result(t, c.trackId!));
      await record(ctx, c, 'sent', v.code, v.messages);
    } catch (e) {
      if (!(e instanceof TaxauthError && e.transient)) throw e;
    }
  }
}

async function finish(ctx: Ctx, cases: readonly CaseRow[], outcome: RunOutcome): Promise<RunResult> {
  const rejected = cases.filter((c) => c.state === 'rejected').map(report);
  const counts = ctx.paso === 2 ? portalCounts(cases, []) : portalCounts([], cases);
  const uploads = counts.uploads;
  const note =
    outcome === 'done'
      ? ctx.paso === 2
        ? `Every case accepted: ${counts.ecf.accepted}/${counts.ecf.total} e-CF, ${counts.rfce.accepted}/${counts.rfce.total} RFCE. ` +
          `Upload the ${uploads} full consumo XMLs (\`ecf certify uploads\` writes them) in the portal's "Facturas de consumo < 250Mil" box, then import the Paso 3 workbook.`
        : `Every commercial approval accepted (${counts.approvals.accepted}/${counts.approvals.total}). Next: \`ecf certify simulate\` (Paso 4).`
      : outcome === 'stopped'
        ? `The authority rejected ${rejected.map((r) => `row ${r.row} of ${r.sheet} (${r.encf})`).join(', ')}. ${ctx.paso === 2 ? RESET_EXPLANATION : 'Fix the cause and run again; the portal may restart the Paso 3 counter.'}`
        : outcome === 'blocked'
          ? 'Notes wait for the e-CF they modify, which is not accepted: check the workbook.'
          : outcome === 'interrupted'
            ? 'Interrupted. Run `ecf certify run` again to go on: nothing is sent twice.'
            : 'The authority has not given every verdict yet, or could not be reached. Run `ecf certify run` again later: it asks before sending anything again.';
  const state = outcome === 'done' ? 'done' : outcome === 'stopped' ? 'failed' : 'in_progress';
  await inTransaction(ctx.engine.db, (tx) =>
    recordPasoIn(tx, ctx.tenantId, ctx.paso, { state, note, detail: { counts, generation: cases[0]?.generation, rejected: rejected.length ? rejected : undefined } }, ctx.engine.clock.now()),
  );
  return { paso: ctx.paso, generation: cases[0]?.generation ?? 0, outcome, counts, rejected, note };
}
