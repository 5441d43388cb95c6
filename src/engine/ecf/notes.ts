import type { Engine } from '../engine-types.js';
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

/**
 * The same, for an e-CF the caller has already read (the console's detail
 * page). Only the tenant and the modified e-NCF are asked of the store, so
 * the one index that holds both (ecf_modifies) is the plan even on a SQLite
 * file without statistics: with environment and type in the WHERE and an
 * ORDER BY, SQLite chose a list index by environment and read a million
 * rows (a second a page). A few notes per e-CF are filtered and sorted here.
 */
export async function notesModifyingEcf(engine: Engine, tenantId: string, ecf: Pick<EcfView, 'id' | 'encf' | 'environment'>): Promise<EcfSummary[]> {
  const rows = await engine.db
    .selectFrom('ecf')
    .select(SUMMARY_COLUMNS.map((c) => `ecf.${c}` as const))
    .select('ecf.store_key')
    .where('ecf.tenant_key', '=', await tenantKey(engine.db, tenantId))
    .where('ecf.modifies_encf', '=', ecf.encf)
    .execute();
  return rows
    .filter((r) => r.environment === ecf.environment && (r.type === 33 || r.type === 34) && r.id !== ecf.id)
    .sort((a, b) => Number(a.issued_at) - Number(b.issued_at) || Number(a.store_key) - Number(b.store_key))
    .map(summaryView);
}
