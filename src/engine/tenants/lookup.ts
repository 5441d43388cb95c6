import type { Selectable } from 'kysely';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Db } from '../store/database.js';
import { forUpdate } from '../store/locking.js';
import { prepared } from '../store/prepared.js';
import type { OrganizationsTable, TenantsTable } from '../store/schema.js';

/*
 * The reads of tenants/: finding an organization or a tenant by id. Apart
 * from the writes (organizations.ts, tenants.ts) because the writes note the
 * organization's usage (limits/usage.ts), and limits and settings read these:
 * reads below them, writes above, so no import runs back.
 */

/** `forUpdate`: the caller's transaction checks a cap of the organization; other such writers wait for it. */
export async function requireOrganization(db: Db, id: string, options: { forUpdate?: boolean } = {}): Promise<Selectable<OrganizationsTable>> {
  const query = db.selectFrom('organizations').selectAll().where('id', '=', id);
  const row = isUuid(id) ? await (options.forUpdate ? forUpdate(db, query) : query).executeTakeFirst() : undefined;
  if (!row) throw notFound('Organization');
  return row;
}

// Read by every request that issues: answered from memory until the store changes.
const tenantById = prepared((db, p: { id: string }) => db.selectFrom('tenants').selectAll().where('id', '=', p.id), { reuseUntilCommit: true });
const tenantByIdForUpdate = prepared((db, p: { id: string }) => forUpdate(db, db.selectFrom('tenants').selectAll().where('id', '=', p.id)));

/** `forUpdate`: the caller's transaction writes what depends on this tenant; other such writers wait for it. */
export async function requireTenant(db: Db, id: string, options: { forUpdate?: boolean } = {}): Promise<Selectable<TenantsTable>> {
  const row = isUuid(id) ? (await (options.forUpdate ? tenantByIdForUpdate : tenantById)(db, { id }))[0] : undefined;
  if (!row) throw notFound('Tenant');
  return row;
}
