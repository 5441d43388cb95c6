import type { Selectable } from 'kysely';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { afterCommit, type Db } from '../store/database.js';
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

// A tenant's store key is assigned once and never changes, and tenants are never deleted, so a
// key read from committed rows holds for the life of the store. One map per store: the store's
// adapter, which its transactions share, and which a store opened again (a restore) does not.
const storeKeys = new WeakMap<object, Map<string, number>>();
const storeKeyById = prepared((db, p: { id: string }) => db.selectFrom('tenants').select('store_key').where('id', '=', p.id));

/** Matches no e-CF: what a query for a tenant that does not exist filters by. */
export const NO_TENANT_KEY = -1;

/**
 * The small integer `ecf` carries for the tenant (`ecf.tenant_key`, migration
 * 0021); every query on `ecf` filters by it. A read inside a transaction is
 * remembered once it commits: the tenant it finds may be one that
 * transaction is adding, and a rollback would take it away.
 */
export async function tenantKey(db: Db, tenantId: string): Promise<number> {
  const adapter = db.getExecutor().adapter;
  const known = storeKeys.get(adapter)?.get(tenantId) ?? (db.isTransaction ? readInTransaction.get(db)?.get(tenantId) : undefined);
  if (known !== undefined) return known;
  const row = isUuid(tenantId) ? (await storeKeyById(db, { id: tenantId }))[0] : undefined;
  if (!row) return NO_TENANT_KEY;
  const remember = (where: WeakMap<object, Map<string, number>>, of: object) => {
    let keys = where.get(of);
    if (!keys) where.set(of, (keys = new Map()));
    keys.set(tenantId, row.store_key);
  };
  if (db.isTransaction) {
    // A transaction that reads it in a loop (an annulment's thousands of ranges) reads it once.
    remember(readInTransaction, db);
    afterCommit(db, () => remember(storeKeys, adapter));
  } else remember(storeKeys, adapter);
  return row.store_key;
}

/** Keys read inside a transaction not yet committed, for that transaction only. */
const readInTransaction = new WeakMap<object, Map<string, number>>();
