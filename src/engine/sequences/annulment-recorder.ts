import type { Engine } from '../engine-types.js';
import { logStateChange } from '../log/state-change.js';
import type { AnnulmentAnswer } from '../taxauth/types.js';
import { findAnnulment, type AnnulmentRow } from './annulment-views.js';

/**
 * What one send of an ANECF came to, as the annulment records it: the
 * authority's answer (voided on codigo 15, rejected otherwise, or a definite
 * refusal of anularrango), or `failed` with why no answer came.
 */
export type AnnulmentOutcome =
  | { readonly status: 'voided' | 'rejected'; readonly answer: AnnulmentAnswer }
  | { readonly status: 'failed'; readonly error: string };

/**
 * Records a send's outcome in one statement. It applies only to the attempt
 * it belongs to: a send that outlived its lease, whose record another
 * attempt took over, records nothing (the record as it stands is returned).
 */
export async function recordAnnulmentOutcome(engine: Engine, row: AnnulmentRow, outcome: AnnulmentOutcome, encf: string): Promise<AnnulmentRow> {
  const now = engine.clock.now().toISOString();
  const changes: Partial<AnnulmentRow> =
    outcome.status === 'failed'
      ? { status: 'failed', last_error: outcome.error }
      : {
          status: outcome.status,
          taxauth_code: outcome.answer.code,
          taxauth_messages: JSON.stringify(outcome.answer.messages),
          last_error: null,
          submitted_at: now,
          voided_at: outcome.status === 'voided' ? now : null,
        };
  const result = await engine.db
    .updateTable('annulments')
    .set({ ...changes, sending_until: null, updated_at: now })
    .where('id', '=', row.id)
    .where('status', '=', 'sending')
    .where('attempts', '=', row.attempts)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return findAnnulment(engine.db, row.tenant_id, row.id);
  // One statement on the store's own connection: committed by now.
  logStateChange(engine.log, engine.db, {
    subject: 'annulment', tenantId: row.tenant_id, id: row.id, encf, from: 'sending', to: outcome.status, attempt: row.attempts,
    extra: {
      environment: row.environment,
      ...(outcome.status === 'failed' ? { err: outcome.error } : { code: outcome.answer.code }),
    },
  });
  return { ...row, ...changes, sending_until: null, updated_at: now };
}
