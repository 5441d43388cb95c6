import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { conflict } from '../errors.js';
import { logStateChange } from '../log/state-change.js';
import type { Environment } from '../schema-types.js';
import { inTransaction } from '../store/database.js';
import { requireTenant } from '../tenants/lookup.js';
import { sendAnnulment, sendLeaseMs } from './annulment-send.js';
import { annulmentView, findAnnulment, linesOf, type AnnulmentRow } from './annulment-views.js';
import type { AnnulmentView } from './schemas.js';

/**
 * POST /sequences/annulments/{id}/retry: sends the same signed bytes again,
 * for a `failed` or `rejected` annulment (or one whose sender stopped
 * mid-send). 409 `Annulment.NotRetryable` once voided, `Annulment.InProgress`
 * while another send is in flight.
 */
export async function retryAnnulment(engine: Engine, tenantId: string, id: string): Promise<AnnulmentView> {
  const tenant = await requireTenant(engine.db, tenantId);
  const known = await findAnnulment(engine.db, tenantId, id);
  const leaseMs = await sendLeaseMs(engine, known.environment as Environment);
  const now = engine.clock.now();
  const claimed = await inTransaction(engine.db, async (tx) => {
    // Two retries at once: the second waits here, then sees the first one's `sending`.
    const row = await findAnnulment(tx, tenantId, id, { forUpdate: true });
    if (row.status === 'voided') {
      throw conflict('Annulment.NotRetryable', `Annulment ${row.id} is voided: the authority confirmed it${row.voided_at ? ` at ${toDominicanIso(row.voided_at)}` : ''}.`);
    }
    if (row.status === 'sending' && row.sending_until !== null && now.toISOString() < row.sending_until) {
      throw conflict('Annulment.InProgress', `Annulment ${row.id} is being sent now; wait for its answer.`);
    }
    const next: AnnulmentRow = {
      ...row,
      status: 'sending',
      attempts: row.attempts + 1,
      sending_until: new Date(now.getTime() + leaseMs).toISOString(),
      updated_at: now.toISOString(),
    };
    await tx
      .updateTable('annulments')
      .set({ status: next.status, attempts: next.attempts, sending_until: next.sending_until, updated_at: next.updated_at })
      .where('id', '=', row.id)
      .execute();
    logStateChange(engine.log, tx, {
      subject: 'annulment', tenantId, id: row.id, from: row.status, to: 'sending', attempt: next.attempts, extra: { environment: row.environment, retry: true },
    });
    return next;
  });
  const lines = await linesOf(engine.db, claimed.id);
  return annulmentView(await sendAnnulment(engine, claimed, tenant.rnc, lines), lines, engine.clock.now());
}
