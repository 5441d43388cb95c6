import type { Engine } from '../engine-types.js';
import { notFound, ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';
import { tenantKey } from '../tenants/lookup.js';

/** At most this many e-CF per status request: a page of the list is at most 200, a poll asks for what is on screen. */
export const MAX_STATUS_IDS = 200;

export interface EcfStatusRow {
  readonly id: string;
  readonly encf: string;
  readonly status: string;
}

/**
 * The current status of some of the tenant's e-CF (what a page open on them
 * polls). Every id must be one of the tenant's: an unknown or another
 * tenant's id is NotFound, as for one e-CF, so the answer never tells
 * whether another tenant's id exists.
 */
export async function ecfStatuses(engine: Engine, tenantId: string, ids: readonly string[]): Promise<EcfStatusRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) throw new ValidationError([{ path: 'ids', code: 'Validation.Required', message: 'ids must name at least one e-CF id' }]);
  if (unique.length > MAX_STATUS_IDS) {
    throw new ValidationError([{ path: 'ids', code: 'Validation.TooMany', message: `ids must name at most ${MAX_STATUS_IDS} e-CF, not ${unique.length}` }]);
  }
  if (!unique.every(isUuid)) throw notFound('Ecf');
  // By id alone, the tenant checked here: with the tenant in the WHERE, SQLite without statistics
  // walked a tenant-prefixed index (the whole tenant) instead of the unique id index.
  const key = await tenantKey(engine.db, tenantId);
  const found = await engine.db.selectFrom('ecf').select(['id', 'encf', 'status', 'tenant_key']).where('id', 'in', unique).execute();
  const rows = found.filter((r) => r.tenant_key === key).map(({ id, encf, status }) => ({ id, encf, status }));
  if (rows.length !== unique.length) throw notFound('Ecf');
  const byId = new Map(rows.map((r) => [r.id, r]));
  return unique.map((id) => byId.get(id)!);
}
