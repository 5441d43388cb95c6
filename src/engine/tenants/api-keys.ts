import { createHash, randomBytes } from 'node:crypto';
import type { Engine } from '../engine-types.js';
import { EngineError, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { inTransaction } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import { check } from '../validation.js';
import { Type } from '@sinclair/typebox';
import { Nullable, Text, Uuid } from '../schema-types.js';
import { unauthenticated, type Principal } from './access.js';
import { requireOrganization } from './lookup.js';
import { TenantRoleSchema, type ApiKeyView, type TenantRole } from './schemas.js';
import { requireTenant, tenantKey } from './lookup.js';
import { appendJournal } from '../journal/append.js';
import { apiKeyView } from './views.js';

/**
 * Keys look like `ecf_1a2b3c4d5e6f_<43 base64url chars>`. The first part is
 * the visible prefix, kept in clear to recognise a key in lists and logs; the
 * whole key is stored only as its SHA-256 and shown once, at creation.
 */
const KEY_FORMAT = /^ecf_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/;
const LAST_USED_RESOLUTION_MS = 60_000;

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

function mintKey(): { key: string; prefix: string; hash: string } {
  const prefix = `ecf_${randomBytes(6).toString('hex')}`;
  const key = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix, hash: hashApiKey(key) };
}

export interface CreatedApiKey {
  readonly apiKey: ApiKeyView;
  /** The whole key: shown now and never again. */
  readonly key: string;
}

const CreateTenantKeyInput = Type.Object(
  { tenantId: Uuid(), role: TenantRoleSchema, name: Type.Optional(Nullable(Text({ maxLength: 100 }))) },
  { additionalProperties: false },
);

export async function createTenantApiKey(engine: Engine, input: unknown): Promise<CreatedApiKey> {
  const cmd = check(CreateTenantKeyInput, input);
  return inTransaction(engine.db, async (tx) => {
    await requireTenant(tx, cmd.tenantId);
    const { key, prefix, hash } = mintKey();
    const row = {
      id: newId(),
      prefix,
      key_hash: hash,
      role: cmd.role,
      tenant_id: cmd.tenantId,
      organization_id: null,
      member_id: null,
      name: cmd.name ?? null,
      created_at: engine.clock.now().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    await tx.insertInto('api_keys').values(row).execute();
    // The role only: the secret never enters the journal.
    appendJournal(tx, engine.clock.now(), { tenantKey: await tenantKey(tx, cmd.tenantId), kind: 'api_key.created', ref: row.id, data: row.role });
    return { apiKey: apiKeyView(row), key };
  });
}

const CreateOrganizationKeyInput = Type.Object(
  { organizationId: Uuid(), memberId: Uuid(), name: Type.Optional(Nullable(Text({ maxLength: 100 }))) },
  { additionalProperties: false },
);

/** A key for an organization's owner or admin, acting on the organization (e.g. creating tenants). */
export async function createOrganizationApiKey(engine: Engine, input: unknown): Promise<CreatedApiKey> {
  const cmd = check(CreateOrganizationKeyInput, input);
  return inTransaction(engine.db, async (tx) => {
    await requireOrganization(tx, cmd.organizationId);
    const member = await tx
      .selectFrom('organization_members')
      .selectAll()
      .where('id', '=', cmd.memberId)
      .where('organization_id', '=', cmd.organizationId)
      .executeTakeFirst();
    if (!member) throw notFound('Member');
    if (member.role !== 'owner' && member.role !== 'admin') {
      throw new EngineError(
        'validation',
        'ApiKey.MemberRoleNotAllowed',
        `Organization keys are for owners and admins; member ${member.name} has role ${member.role}.`,
      );
    }
    const { key, prefix, hash } = mintKey();
    const row = {
      id: newId(),
      prefix,
      key_hash: hash,
      role: `org_${member.role}`,
      tenant_id: null,
      organization_id: cmd.organizationId,
      member_id: member.id,
      name: cmd.name ?? null,
      created_at: engine.clock.now().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    await tx.insertInto('api_keys').values(row).execute();
    return { apiKey: apiKeyView(row), key };
  });
}

export async function listApiKeys(
  engine: Engine,
  filter: { tenantId?: string; organizationId?: string } = {},
): Promise<ApiKeyView[]> {
  let q = engine.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id');
  if (filter.tenantId) q = q.where('tenant_id', '=', filter.tenantId);
  if (filter.organizationId) q = q.where('organization_id', '=', filter.organizationId);
  return (await q.execute()).map(apiKeyView);
}

/** Revokes by id or visible prefix; revoking twice keeps the first revocation time. */
export async function revokeApiKey(engine: Engine, idOrPrefix: string): Promise<ApiKeyView> {
  return inTransaction(engine.db, async (tx) => {
    const row = await tx
      .selectFrom('api_keys')
      .selectAll()
      .where(isUuid(idOrPrefix) ? 'id' : 'prefix', '=', idOrPrefix)
      .executeTakeFirst();
    if (!row) throw notFound('ApiKey');
    if (row.revoked_at) return apiKeyView(row);
    const revoked_at = engine.clock.now().toISOString();
    await tx.updateTable('api_keys').set({ revoked_at }).where('id', '=', row.id).execute();
    // An organization's key is not a tenant's record: it has no journal entry (docs/record.md).
    if (row.tenant_id) appendJournal(tx, engine.clock.now(), { tenantKey: await tenantKey(tx, row.tenant_id), kind: 'api_key.revoked', ref: row.id, data: row.role });
    return apiKeyView({ ...row, revoked_at });
  });
}

/** The principal a presented key stands for; 401 codes for a missing, malformed, unknown or revoked key. */
const keyByHash = prepared((db, p: { hash: string }) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', p.hash));

export async function authenticate(engine: Engine, presented: string | undefined): Promise<Principal> {
  if (!presented) throw unauthenticated('Auth.MissingKey', 'Send an API key in the X-API-Key header.');
  const invalid = () => unauthenticated('Auth.InvalidKey', 'The API key is not valid or has been revoked.');
  if (!KEY_FORMAT.test(presented)) throw invalid();
  const [row] = await keyByHash(engine.db, { hash: hashApiKey(presented) });
  if (!row || row.revoked_at) throw invalid();

  const now = engine.clock.now();
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
    await engine.db.updateTable('api_keys').set({ last_used_at: now.toISOString() }).where('id', '=', row.id).execute();
  }
  if (row.tenant_id) {
    return { kind: 'tenant', keyId: row.id, tenantId: row.tenant_id, role: row.role as TenantRole };
  }
  return {
    kind: 'organization',
    keyId: row.id,
    organizationId: row.organization_id!,
    memberId: row.member_id!,
    role: row.role as 'org_owner' | 'org_admin',
  };
}
