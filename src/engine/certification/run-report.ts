import { inTransaction } from '../store/database.js';
import { portalCounts, type CaseRow } from './cases.js';
import { RESET_EXPLANATION } from './rules.js';
import { recordPasoIn } from './state.js';
import { caseReport, type RunContext, type RunOutcome, type RunResult } from './run-types.js';

/** The end of a run: the note for the person, kept on the Paso's record, and the result. */

function noteOf(ctx: RunContext, outcome: RunOutcome, counts: RunResult['counts'], rejected: RunResult['rejected']): string {
  const uploads = counts.uploads;
  switch (outcome) {
    case 'done':
      return ctx.paso === 2
        ? `Every case accepted: ${counts.ecf.accepted}/${counts.ecf.total} e-CF, ${counts.rfce.accepted}/${counts.rfce.total} RFCE. ` +
            `Upload the ${uploads} full consumo XMLs (\`ecf certify uploads\` writes them) in the portal's "Facturas de consumo < 250Mil" box, then import the Paso 3 workbook.`
        : `Every commercial approval accepted (${counts.approvals.accepted}/${counts.approvals.total}). Next: \`ecf certify simulate\` (Paso 4).`;
    case 'stopped':
      return `The authority rejected ${rejected.map((r) => `row ${r.row} of ${r.sheet} (${r.encf})`).join(', ')}. ${ctx.paso === 2 ? RESET_EXPLANATION : 'Fix the cause and run again; the portal may restart the Paso 3 counter.'}`;
    case 'blocked':
      return 'Notes wait for the e-CF they modify, which is not accepted: check the workbook.';
    case 'interrupted':
      return 'Interrupted. Run `ecf certify run` again to go on: nothing is sent twice.';
    case 'waiting':
      return 'The authority has not given every verdict yet, or could not be reached. Run `ecf certify run` again later: it asks before sending anything again.';
  }
}

export async function finishRun(ctx: RunContext, cases: readonly CaseRow[], outcome: RunOutcome): Promise<RunResult> {
  const rejected = cases.filter((c) => c.state === 'rejected').map(caseReport);
  const counts = ctx.paso === 2 ? portalCounts(cases, []) : portalCounts([], cases);
  const note = noteOf(ctx, outcome, counts, rejected);
  const state = outcome === 'done' ? 'done' : outcome === 'stopped' ? 'failed' : 'in_progress';
  await inTransaction(ctx.engine.db, (tx) =>
    recordPasoIn(tx, ctx.tenantId, ctx.paso, { state, note, detail: { counts, generation: cases[0]?.generation, rejected: rejected.length ? rejected : undefined } }, ctx.engine.clock.now()),
  );
  return { paso: ctx.paso, generation: cases[0]?.generation ?? 0, outcome, counts, rejected, note };
}
