import { signingCredentials } from '../certificates/certificates.js';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { signingKey } from '../signing/xmldsig.js';
import type { Conversation } from '../taxauth/conversation.js';
import { loadCases, type CaseRow } from './cases.js';
import { nextStep } from './plan.js';
import { POLL_GIVE_UP_MS, POLL_INTERVALS_MS, settleAfterMs } from './rules.js';
import { requireCertification } from './state.js';
import { claimRun, type RunClaim } from './run-claim.js';
import { conversationOfCase, exchange, type Turn } from './run-exchange.js';
import { prepareCases } from './run-prepare.js';
import { finishRun } from './run-report.js';
import { CERT_ENVIRONMENT, type RunContext, type RunOptions, type RunResult } from './run-types.js';

export { CERT_ENVIRONMENT, type CaseReport, type RunEvent, type RunOptions, type RunOutcome, type RunResult } from './run-types.js';

/**
 * Runs a certification set (Paso 2: e-CF and RFCE; Paso 3: commercial
 * approvals) against the authority's certification environment, one step at
 * a time, each step's result recorded before the next network call:
 *
 *   prepare  every case is built verbatim from its row, signed and checked
 *            against its XSD before the first send, in one transaction
 *            (run-prepare.ts);
 *   settle   a case left `sending` by a run that died, or by a send whose
 *            answer was lost, is asked about settleAfterMs after its send,
 *            before it is sent again, so a case is never sent twice;
 *   send     the next phase of plan.ts, case by case;
 *   poll     verdicts of what was sent, until final.
 *
 * Each case's calls are one conversation with the authority
 * (run-exchange.ts): it says which call comes next, and when to wait or give
 * up, with the limits of rules.ts. The run stops at the first rejection,
 * with the authority's messages and the row. Everything it knows is in the
 * store, so running it again resumes.
 */

const realWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  const ctx: RunContext = { engine, tenantId, rnc: tenant.rnc, client, withToken, emit, paso };
  // Held as long as the slowest step may take without a renewal; a dead pid on this machine frees it at once.
  const claim = await claimRun(engine, tenantId, paso, settleAfterMs(client.timeoutMs) + 60_000);
  try {
    // Read again under the claim: a run that just ended may have moved them.
    return await runClaimed(ctx, await loadCases(engine, tenantId, paso, generation), generation, options, claim);
  } finally {
    await claim.release();
  }
}

async function runClaimed(ctx: RunContext, loaded: readonly CaseRow[], generation: number, options: RunOptions, claim: RunClaim): Promise<RunResult> {
  const { engine, tenantId, paso, client, emit } = ctx;
  const wait = options.wait ?? realWait;
  const reload = () => loadCases(engine, tenantId, paso, generation);
  let cases = loaded;
  if (cases.some((c) => c.state === 'imported')) {
    const creds = await signingCredentials(engine, tenantId);
    await prepareCases(ctx, cases, signingKey(creds.privateKey, creds.certificate));
    cases = await reload();
  }

  // Each case's conversation, kept between its turns: its failures and busy answers in a row count across them.
  const talks = new Map<string, Conversation>();
  /** One turn of a case's exchange, and the wait its conversation asks for; a give-up other than "unreachable" is thrown. */
  const turn = async (c: CaseRow): Promise<Turn> => {
    const t = await exchange(ctx, c, conversationOfCase(c, talks.get(c.id)));
    talks.set(c.id, t.talk);
    if (t.gaveUp && t.gaveUp.why !== 'unreachable') throw t.gaveUp.error ?? new Error(`certification case ${c.encf}: the conversation gave up (${t.gaveUp.why})`);
    if (t.waitMs > 0) await wait(t.waitMs);
    return t;
  };
  /** Polls the sent cases, stopping at the first failed call; true when the authority stayed unreachable. */
  const pollAll = async (sent: readonly CaseRow[]): Promise<boolean> => {
    for (const c of sent) {
      const t = await turn(c);
      if (t.gaveUp) return true;
      if (t.failed) break;
    }
    return false;
  };
  const waiting = async () => finishRun(ctx, await reload(), 'waiting');

  let waitedSince: number | null = null;
  let pollRung = 0;
  let settleTold = false;
  for (;;) {
    if (options.signal?.aborted) return finishRun(ctx, cases, 'interrupted');
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
      for (const c of sending) if ((await turn(c)).gaveUp) return waiting();
      cases = await reload();
      continue;
    }
    const step = nextStep(cases);
    if (step.kind === 'done') return finishRun(ctx, cases, 'done');
    if (step.kind === 'blocked') return finishRun(ctx, cases, 'blocked');
    if (step.kind === 'stopped') {
      // Verdicts of what is already sent are still recorded, so the report is whole.
      const pending = cases.filter((c) => c.state === 'sent');
      if (pending.length === 0) return finishRun(ctx, cases, 'stopped');
      if (await pollAll(pending)) return waiting();
      cases = await reload();
      if (cases.some((c) => c.state === 'sent')) return finishRun(ctx, cases, 'stopped');
      continue;
    }
    if (step.kind === 'wait') {
      waitedSince ??= engine.clock.now().getTime();
      const before = cases.filter((c) => c.state === 'sent').length;
      if (await pollAll(step.pending.filter((c) => c.state === 'sent'))) return waiting();
      cases = await reload();
      if (cases.filter((c) => c.state === 'sent').length === before) {
        if (engine.clock.now().getTime() - waitedSince > POLL_GIVE_UP_MS) return finishRun(ctx, cases, 'waiting');
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
        if (await pollAll(out)) return waiting();
        current = await reload();
        if (current.some((x) => x.state === 'rejected')) break;
      }
      const sent = await turn(c);
      if (sent.gaveUp) return waiting();
      // Not reached: a send in doubt stays `sending` and is settled (asked about) before anything else;
      // one the authority did not take ("not now", a 5xx) is `prepared` again, after its wait.
      if (sent.failed) break;
      // A synchronous rejection (RFCE, approval) stops the phase at once.
      current = await reload();
      if (current.some((x) => x.state === 'rejected')) break;
    }
    cases = await reload();
  }
}
