import { toRowInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { conflict, notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { inTransaction } from '../store/database.js';
import { ecfView, selectEcfRows, taxauthOf, type EcfView } from '../ecf/views.js';
import type { Environment } from '../schema-types.js';
import { queueSubmission } from './submit.js';
import { retryRefusal } from './rules.js';
import { logStateChange } from '../log/state-change.js';
import { tenantKey } from '../tenants/lookup.js';
import { appendJournal, ecfStatusData } from '../journal/append.js';

/**
 * POST /ecf/{id}/retry: re-queues the same signed XML for an e-CF in
 * `failed` or `review`, or `rejected` when the authority did not consume the
 * e-NCF. Asks the authority what it has before sending (a review may already
 * be there).
 */
export async function retryEcf(engine: Engine, tenantId: string, id: string): Promise<EcfView> {
  const now = engine.clock.now();
  return inTransaction(engine.db, async (tx) => {
    const key = await tenantKey(tx, tenantId);
    const row = isUuid(id) ? await selectEcfRows(tx).select('ecf.store_key').where('ecf.tenant_key', '=', key).where('ecf.id', '=', id).executeTakeFirst() : undefined;
    if (!row) throw notFound('Ecf');
    const refusal = retryRefusal({ status: row.status, encf: row.encf, sequenceUsed: (taxauthOf(row.taxauth) ?? {}).sequenceUsed });
    if (refusal) throw conflict(refusal.code, refusal.message);
    const next = { ...row, status: 'signed', updated_at: toRowInstant(now) };
    await tx.updateTable('ecf').set({ status: 'signed', updated_at: next.updated_at }).where('id', '=', row.id).execute();
    appendJournal(tx, now, { tenantKey: key, kind: 'ecf.status', ecfKey: row.store_key, data: ecfStatusData('signed') });
    await tx.deleteFrom('work').where('kind', '=', 'ecf.submit').where('ref', '=', row.id).execute();
    await queueSubmission(tx, now, { id: row.id, tenantId, environment: row.environment as Environment }, { phase: row.status === 'rejected' ? 'prepared' : 'unclear' });
    logStateChange(engine.log, tx, { subject: 'ecf', tenantId, id: row.id, encf: row.encf, from: row.status, to: 'signed', extra: { environment: row.environment, retry: true } });
    return ecfView(next);
  });
}
