import { createHash } from 'node:crypto';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { toStoredInstant } from '../clock.js';
import type { Db, Tx } from '../store/database.js';
import { dialectOf } from '../store/dialect.js';
import { skipLocked } from '../store/locking.js';
import type { Database } from '../store/schema.js';

/**
 * Where the B2B receiver keeps its seeds and bearer tokens (migration 0015):
 * in the store, so a caller may take its seed from one node, trade it for a
 * token at another and deliver at a third, with no sticky sessions.
 *
 * Kept rather than made stateless (signed with a key from the secret store):
 * a seed is good for one exchange, and "spent" is state whichever way the
 * seed is made; a row that the exchange deletes gives single use across
 * nodes in one statement, with no key to share or rotate between them.
 *
 * Only SHA-256 hashes are kept: a token read out of the store (or a backup
 * of it) admits nobody. Expired rows go lazily, a bounded batch whenever a
 * new one of the same kind is made, and each tenant keeps at most `cap` live
 * ones (the oldest go first), so an anonymous flood of seed requests costs
 * a bounded table, as it cost a bounded map before.
 */

export type CredentialKind = 'reception_seeds' | 'reception_tokens';

/** Expired rows removed per new row: more than one, so a backlog drains while the table is in use. */
const PURGE_BATCH = 100;

export const credentialHash = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * The condition `value_hash in (pick)`. On PostgreSQL the picked rows are
 * locked, skipping those another node's housekeeping (or a seed's exchange)
 * holds right now: housekeeping never waits, so it cannot deadlock with
 * another node's, and the ids are gathered once (`= any(array(…))`), as the
 * work queue's claims do.
 */
function pickedHashes(db: Db | Tx, pick: Parameters<typeof skipLocked>[1]) {
  return (eb: ExpressionBuilder<Database, CredentialKind>): Expression<SqlBool> =>
    dialectOf(db) === 'postgres'
      ? eb(eb.ref('value_hash'), '=', sql<string>`any(array(${skipLocked(db, pick)}))`)
      : eb(eb.ref('value_hash'), 'in', pick);
}

/**
 * Keeps a new seed or token (by its hash) for the tenant until `expiresAt`,
 * tidying the table on the way; in the caller's transaction, so a token and
 * the seed it was bought with commit together.
 */
export async function keepCredential(tx: Tx, kind: CredentialKind, tenantId: string, value: string, now: Date, expiresAt: Date, cap: number): Promise<void> {
  const at = toStoredInstant(now);
  const expired = tx.selectFrom(kind).select('value_hash').where('expires_at', '<=', at).orderBy('expires_at').limit(PURGE_BATCH);
  await tx.deleteFrom(kind).where(pickedHashes(tx, expired)).execute();
  await tx.insertInto(kind).values({ value_hash: credentialHash(value), tenant_id: tenantId, expires_at: toStoredInstant(expiresAt), created_at: at }).execute();
  const beyondCap = tx
    .selectFrom(kind)
    .select('value_hash')
    .where('tenant_id', '=', tenantId)
    .orderBy('expires_at', 'desc')
    .orderBy('value_hash', 'desc')
    .limit(PURGE_BATCH)
    .offset(cap);
  await tx.deleteFrom(kind).where(pickedHashes(tx, beyondCap)).execute();
}

/**
 * Spends a seed of the tenant: deletes its row and says until when it was
 * good, or null when there is no such seed (never issued, another tenant's,
 * or already spent). One conditional delete: when two nodes present the same
 * seed at once, the store lets one of them delete the row and the other
 * finds it gone, so a seed buys one token.
 */
export async function spendSeed(tx: Tx, tenantId: string, valor: string): Promise<Date | null> {
  const row = await tx
    .deleteFrom('reception_seeds')
    .where('value_hash', '=', credentialHash(valor))
    .where('tenant_id', '=', tenantId)
    .returning('expires_at')
    .executeTakeFirst();
  return row ? new Date(row.expires_at) : null;
}

/** Whether the token is one of the tenant's and still good at `now`. */
export async function tokenIsLive(db: Db, tenantId: string, token: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('reception_tokens')
    .select('value_hash')
    .where('value_hash', '=', credentialHash(token))
    .where('tenant_id', '=', tenantId)
    .where('expires_at', '>', toStoredInstant(now))
    .executeTakeFirst();
  return row !== undefined;
}
