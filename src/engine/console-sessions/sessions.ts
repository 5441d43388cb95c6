import { createHash, randomBytes } from 'node:crypto';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { authenticate } from '../tenants/api-keys.js';
import type { TenantRole } from '../tenants/schemas.js';

/** A session ends this long after its last use (sliding) ... */
export const IDLE_MS = 8 * 60 * 60 * 1000;
/** ... and this long after sign-in whatever its use (a stolen cookie is not good forever). */
export const ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** `seen_at` is written at most this often: a page load is not a store write. */
const SLIDE_RESOLUTION_MS = 60_000;

/** The caller a session stands for: always a tenant key (organization keys are refused at sign-in). */
export interface ConsolePrincipal {
  readonly kind: 'tenant';
  readonly keyId: string;
  readonly tenantId: string;
  readonly role: TenantRole;
}

export interface OpenedConsoleSession {
  /** The random token for the cookie: shown now, stored only as its SHA-256. */
  readonly token: string;
  /** The token every form of this session carries (CSRF). */
  readonly csrf: string;
  /** The absolute expiry (the cookie's Max-Age). */
  readonly expiresAt: Date;
  readonly principal: ConsolePrincipal;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Signs in with an API key: the key is checked as the API checks it
 * (`authenticate`: missing, malformed, unknown and revoked keys are refused
 * the same way), and an organization's key is refused because the console
 * acts on one tenant.
 */
export async function openConsoleSession(engine: Engine, apiKey: string | undefined): Promise<OpenedConsoleSession> {
  const principal = await authenticate(engine, apiKey?.trim() || undefined);
  if (principal.kind !== 'tenant') {
    throw new EngineError(
      'forbidden',
      'Console.OrganizationKey',
      "The console acts on one tenant and signs in with a tenant's API key; an organization key manages the organization (tenants, members) and cannot sign in.",
    );
  }
  const token = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  const now = engine.clock.now();
  const expiresAt = new Date(now.getTime() + ABSOLUTE_MS);
  await engine.db
    .insertInto('console_sessions')
    .values({
      id_hash: hashToken(token),
      key_id: principal.keyId,
      tenant_id: principal.tenantId,
      csrf,
      created_at: now.toISOString(),
      seen_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
    })
    .execute();
  return { token, csrf, expiresAt, principal: { kind: 'tenant', keyId: principal.keyId, tenantId: principal.tenantId, role: principal.role } };
}

/**
 * The session a cookie's token stands for, or null: unknown token, idle for
 * IDLE_MS, past its absolute expiry, or its key revoked (or gone) since. The
 * key's role is read on every call, so the role table decides with today's
 * key. An ended session's row is removed on the way.
 */
export async function resolveConsoleSession(
  engine: Engine,
  token: string | undefined,
): Promise<{ principal: ConsolePrincipal; csrf: string; expiresAt: Date } | null> {
  if (!token || token.length > 200) return null;
  const idHash = hashToken(token);
  const row = await engine.db
    .selectFrom('console_sessions as s')
    .leftJoin('api_keys as k', 'k.id', 's.key_id')
    .select(['s.key_id', 's.tenant_id', 's.csrf', 's.seen_at', 's.expires_at', 'k.role', 'k.revoked_at', 'k.tenant_id as key_tenant'])
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return null;
  const now = engine.clock.now().getTime();
  const seen = Date.parse(row.seen_at);
  const ended =
    now >= Date.parse(row.expires_at) || now - seen >= IDLE_MS || !row.role || row.revoked_at !== null || row.key_tenant !== row.tenant_id;
  if (ended) {
    await engine.db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
    return null;
  }
  if (now - seen >= SLIDE_RESOLUTION_MS) {
    await engine.db.updateTable('console_sessions').set({ seen_at: new Date(now).toISOString() }).where('id_hash', '=', idHash).execute();
  }
  return {
    principal: { kind: 'tenant', keyId: row.key_id, tenantId: row.tenant_id, role: row.role as TenantRole },
    csrf: row.csrf,
    expiresAt: new Date(row.expires_at),
  };
}

/** Signs out: the token stops working at once. Closing an unknown token does nothing. */
export async function closeConsoleSession(engine: Engine, token: string | undefined): Promise<void> {
  if (!token || token.length > 200) return;
  await engine.db.deleteFrom('console_sessions').where('id_hash', '=', hashToken(token)).execute();
}
