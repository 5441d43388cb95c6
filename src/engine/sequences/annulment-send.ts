import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { documentOrder } from '../documents/anecf-xml.js';
import type { Environment } from '../schema-types.js';
import { annulmentAnswer } from '../taxauth/parse.js';
import { begin, eventOfError, prepared, step, type Move } from '../taxauth/conversation.js';
import { TaxauthError } from '../taxauth/errors.js';
import type { AnnulmentAnswer } from '../taxauth/types.js';
import { recordAnnulmentOutcome, type AnnulmentOutcome } from './annulment-recorder.js';
import type { AnnulmentLineRow, AnnulmentRow } from './annulment-views.js';
import { encfOf } from './ranges.js';
import { ANNULLED_CODE, ANNULMENT_CONVERSATION_LIMITS, LEASE_CALLS } from './rules.js';

/**
 * One send of a stored ANECF (anularrango), outside any transaction, as one
 * exchange of the conversation with the authority (taxauth/conversation.ts):
 * begin → send → the answer (a verdict, whatever its codigo) or the failure
 * read by eventOfError. With no rungs (rules.ts), every failure ends the
 * exchange: a definite refusal of anularrango is the authority's verdict
 * (rejected), anything else left the document without an answer (failed).
 */

/** How long a send may hold its record `sending`: past it the sender is taken for gone. */
export async function sendLeaseMs(engine: Engine, environment: Environment): Promise<number> {
  return (await engine.taxauth.settings(environment)).timeoutMs * LEASE_CALLS;
}

/** Sends the stored bytes and records what came of it; returns the record as it stands after. */
export async function sendAnnulment(engine: Engine, row: AnnulmentRow, rnc: string, lines: readonly AnnulmentLineRow[]): Promise<AnnulmentRow> {
  const environment = row.environment as Environment;
  const first = documentOrder(lines.map((l) => ({ type: l.type, series: l.series, from: l.range_from, to: l.range_to })))[0]!;
  const encf = encfOf(first.series, first.type, first.from);
  // Decompressed and checked against xml_sha256: a damaged ANECF is never sent (DocumentDamaged).
  const xml = await engine.documents.read(engine.db, row.xml, row.xml_sha256, { table: 'annulments', id: row.id, encf });
  const sending = begin(prepared());
  let outcome: AnnulmentOutcome;
  try {
    const client = await engine.taxauth.client(environment);
    const answer = await engine.taxauth.withToken(row.tenant_id, environment, (token) => client.annulRanges(token, { rnc, encf, xml }));
    outcome = outcomeOf(step(sending.state, { type: 'verdict' }, ANNULMENT_CONVERSATION_LIMITS), { answer });
  } catch (e) {
    if (e instanceof TaxauthError) {
      // The port (engine.taxauth.withToken) already renewed a refused token once: a 401 here is not renewed again.
      outcome = outcomeOf(step({ ...sending.state, renewed: true }, eventOfError(e), ANNULMENT_CONVERSATION_LIMITS), { error: e });
    } else if (e instanceof EngineError) {
      // Not an exchange with the authority: the engine could not make the call (no credentials, a setting).
      outcome = { status: 'failed', error: `${e.code}: ${e.message}` };
    } else {
      await recordAnnulmentOutcome(engine, row, { status: 'failed', error: `Unexpected error while sending: ${e instanceof Error ? e.message : String(e)}` }, encf);
      throw e;
    }
  }
  return recordAnnulmentOutcome(engine, row, outcome, encf);
}

/**
 * The conversation's last move as the annulment's outcome. A refusal counts
 * as the authority's verdict on the ANECF only when anularrango itself gave
 * it; a refusal of the seed or its signature means the ANECF got no answer.
 */
function outcomeOf(move: Move, heard: { readonly answer: AnnulmentAnswer } | { readonly error: TaxauthError }): AnnulmentOutcome {
  if ('answer' in heard) {
    if (move.command.do === 'record-verdict') return { status: heard.answer.code === ANNULLED_CODE ? 'voided' : 'rejected', answer: heard.answer };
    throw new Error(`annulment: the conversation said ${move.command.do} after an answer`);
  }
  const e = heard.error;
  if (move.command.do === 'give-up' && move.command.why === 'refused' && e.operation === 'anulacionrangos') {
    return { status: 'rejected', answer: annulmentAnswer(e.rawBody ?? '') ?? { rnc: null, code: null, name: null, messages: [e.message] } };
  }
  const where = e.operation ? ` (${e.operation})` : '';
  return { status: 'failed', error: e.kind === 'http' ? `The tax authority answered HTTP ${e.status}${where}: ${e.message}` : e.message };
}
