import type { Engine } from '../engine.js';
import { tenantKey } from '../tenants/lookup.js';
import { getEcf } from './queries.js';
import { summaryView, SUMMARY_COLUMNS, type EcfSummary, type EcfView } from './views.js';

/**
 * The debit and credit notes (types 33 and 34) of the tenant that modify
 * the e-CF `id` (their NCFModificado is its e-NCF, kept in
 * `ecf.modifies_encf` since migration 0029), oldest first. NotFound for
 * another tenant's id.
 */
export async function notesModifying(engine: Engine, tenantId: string, id: string): Promise<EcfSummary[]> {
  return notesModifyingEcf(engine, tenantId, await getEcf(engine, tenantId, id));
}

/** The same, for an e-CF the caller has already read (the console's detail page). */
export async function notesModifyingEcf(engine: Engine, tenantId: string, ecf: Pick<EcfView, 'id' | 'encf' | 'environment'>): Promise<EcfSummary[]> {
  const rows = await engine.db
    .selectFrom('ecf')
    .select(SUMMARY_COLUMNS.map((c) => `ecf.${c}` as const))
    .where('ecf.tenant_key', '=', await tenantKey(engine.db, tenantId))
    .where('ecf.modifies_encf', '=', ecf.encf)
    .where('ecf.environment', '=', ecf.environment)
    .where('ecf.type', 'in', [33, 34])
    .where('ecf.id', '!=', ecf.id)
    .orderBy('ecf.issued_at')
    .orderBy('ecf.store_key')
    .execute();
  return rows.map(summaryView);
}
