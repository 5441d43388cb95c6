import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { toDominicanIso } from '../../../src/engine/clock.js';
import { DATABASE_FILE } from '../../../src/engine/data-dir.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { EngineError } from '../../../src/engine/errors.js';
import {
  authenticate,
  createOrganizationApiKey,
  createTenantApiKey,
  listApiKeys,
  revokeApiKey,
} from '../../../src/engine/tenants/api-keys.js';
import { addMember } from '../../../src/engine/tenants/organizations.js';
import { createTenant } from '../../../src/engine/tenants/tenants.js';
import { STORE, nextRnc, organizationKey, seedOrganization, storedBytes, testEngine } from '../../helpers.js';

const KEY = /^ecf_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

async function newTenant(engine: Engine) {
  return createTenant(engine, { rnc: nextRnc(), legalName: 'Colmado La Esquina SRL' });
}

/** Runs `work` and returns the EngineError it throws; fails the test if it does not throw one. */
async function engineError(work: () => Promise<unknown>): Promise<EngineError> {
  try {
    await work();
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError);
    return e as EngineError;
  }
  throw new Error('expected an EngineError, nothing was thrown');
}

function fileBytes(engine: Engine): { main: Buffer; wal: Buffer } {
  const file = join(engine.dataDir, DATABASE_FILE);
  const wal = `${file}-wal`;
  return { main: readFileSync(file), wal: existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0) };
}

describe('API keys', () => {
  it('returns the whole key once, in the documented format, with a 16-character visible prefix', async () => {
    const engine = await testEngine();
    const tenant = await newTenant(engine);
    const created = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'emisor', name: 'caja 1' });

    expect(created.key).toMatch(KEY);
    expect(created.apiKey.prefix).toBe(created.key.slice(0, 16));
    expect(created.apiKey.prefix).toMatch(/^ecf_[0-9a-f]{12}$/);
    expect(created.apiKey).toEqual({
      id: expect.any(String),
      prefix: created.key.slice(0, 16),
      role: 'emisor',
      tenantId: tenant.id,
      organizationId: null,
      memberId: null,
      name: 'caja 1',
      createdAt: '2026-03-10T10:00:00.000-04:00',
      lastUsedAt: null,
      revokedAt: null,
    });
    // The view never carries the key, nor its hash.
    expect(JSON.stringify(created.apiKey)).not.toContain(created.key);
    expect(JSON.stringify(created.apiKey)).not.toContain(sha256(created.key));

    const other = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'emisor' });
    expect(other.key).not.toBe(created.key);
    expect(other.apiKey.prefix).not.toBe(created.apiKey.prefix);
  });

  it('stores only the SHA-256 hex of the key', async () => {
    const engine = await testEngine();
    const tenant = await newTenant(engine);
    const { key, apiKey } = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'consultor' });
    const row = await engine.db.selectFrom('api_keys').selectAll().where('id', '=', apiKey.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256(key));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.prefix).toBe(key.slice(0, 16));
    for (const value of Object.values(row)) {
      if (typeof value === 'string') expect(value.includes(key.slice(17))).toBe(false);
    }
  });

  it.runIf(STORE === 'postgres')('never writes the raw key to the database', async () => {
    const engine = await testEngine();
    const tenant = await newTenant(engine);
    const { key } = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'admin_tenant' });
    await authenticate(engine, key);
    const all = await storedBytes(engine);
    expect(all.indexOf(key.slice(0, 16))).not.toBe(-1);
    expect(all.indexOf(key)).toBe(-1);
    expect(all.indexOf(key.slice(17))).toBe(-1);
  });

  it.runIf(STORE === 'sqlite')('never writes the raw key to the SQLite file or its WAL', async () => {
    const engine = await testEngine();
    const tenant = await newTenant(engine);
    const { key } = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'admin_tenant' });
    const { organization, owner } = await seedOrganization(engine);
    const orgKey = await organizationKey(engine, organization.id, owner.id);
    await authenticate(engine, key);
    await authenticate(engine, orgKey);
    const secret = key.slice(17);
    const prefix = key.slice(0, 16);

    // Before the checkpoint the rows may live in the WAL.
    const before = fileBytes(engine);
    const all = Buffer.concat([before.main, before.wal]);
    expect(all.indexOf(prefix)).not.toBe(-1);
    expect(all.indexOf(orgKey.slice(0, 16))).not.toBe(-1);
    for (const k of [key, orgKey]) {
      expect(all.indexOf(k)).toBe(-1);
      expect(all.indexOf(k.slice(17))).toBe(-1);
    }

    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(engine.db);
    const afterCheckpoint = fileBytes(engine);
    expect(afterCheckpoint.main.indexOf(prefix)).not.toBe(-1);
    expect(afterCheckpoint.main.indexOf(key)).toBe(-1);
    expect(afterCheckpoint.main.indexOf(secret)).toBe(-1);

    await engine.close();
    const closed = fileBytes(engine);
    const closedAll = Buffer.concat([closed.main, closed.wal]);
    expect(closedAll.indexOf(prefix)).not.toBe(-1);
    expect(closedAll.indexOf(key)).toBe(-1);
    expect(closedAll.indexOf(orgKey)).toBe(-1);
  });

  it('lists keys without the key or its hash', async () => {
    const engine = await testEngine();
    const a = await newTenant(engine);
    const b = await newTenant(engine);
    const ka = await createTenantApiKey(engine, { tenantId: a.id, role: 'emisor' });
    engine.clock.advance(1000);
    const ka2 = await createTenantApiKey(engine, { tenantId: a.id, role: 'consultor' });
    const kb = await createTenantApiKey(engine, { tenantId: b.id, role: 'emisor' });

    const list = await listApiKeys(engine, { tenantId: a.id });
    expect(list.map((k) => k.id)).toEqual([ka.apiKey.id, ka2.apiKey.id]);
    const everything = await listApiKeys(engine);
    expect(everything.map((k) => k.id).sort()).toEqual([ka.apiKey.id, ka2.apiKey.id, kb.apiKey.id].sort());
    const text = JSON.stringify(everything);
    for (const k of [ka, ka2, kb]) {
      expect(text).not.toContain(k.key);
      expect(text).not.toContain(k.key.slice(17));
      expect(text).not.toContain(sha256(k.key));
      expect(text).toContain(k.apiKey.prefix);
    }
    for (const view of everything) {
      expect(Object.keys(view).sort()).toEqual(
        ['createdAt', 'id', 'lastUsedAt', 'memberId', 'name', 'organizationId', 'prefix', 'revokedAt', 'role', 'tenantId'],
      );
    }
  });

  it('authenticates tenant keys as their tenant and role', async () => {
    const engine = await testEngine();
    const a = await newTenant(engine);
    const b = await newTenant(engine);
    for (const role of ['admin_tenant', 'emisor', 'consultor'] as const) {
      const ka = await createTenantApiKey(engine, { tenantId: a.id, role });
      const kb = await createTenantApiKey(engine, { tenantId: b.id, role });
      expect(await authenticate(engine, ka.key)).toEqual({ kind: 'tenant', keyId: ka.apiKey.id, tenantId: a.id, role });
      expect(await authenticate(engine, kb.key)).toEqual({ kind: 'tenant', keyId: kb.apiKey.id, tenantId: b.id, role });
    }
  });

  it('authenticates organization keys as org_owner or org_admin; plain members get no key', async () => {
    const engine = await testEngine();
    const { organization, owner } = await seedOrganization(engine);
    const admin = await addMember(engine, organization.id, { name: 'Luis Gómez', role: 'admin' });
    const member = await addMember(engine, organization.id, { name: 'Rosa Díaz', role: 'member' });

    const ownerKey = await createOrganizationApiKey(engine, { organizationId: organization.id, memberId: owner.id });
    expect(ownerKey.key).toMatch(KEY);
    expect(ownerKey.apiKey).toMatchObject({
      role: 'org_owner',
      tenantId: null,
      organizationId: organization.id,
      memberId: owner.id,
    });
    expect(await authenticate(engine, ownerKey.key)).toEqual({
      kind: 'organization',
      keyId: ownerKey.apiKey.id,
      organizationId: organization.id,
      memberId: owner.id,
      role: 'org_owner',
    });

    const adminKey = await createOrganizationApiKey(engine, { organizationId: organization.id, memberId: admin.id });
    expect(await authenticate(engine, adminKey.key)).toEqual({
      kind: 'organization',
      keyId: adminKey.apiKey.id,
      organizationId: organization.id,
      memberId: admin.id,
      role: 'org_admin',
    });

    const before = await listApiKeys(engine, { organizationId: organization.id });
    const err = await engineError(() =>
      createOrganizationApiKey(engine, { organizationId: organization.id, memberId: member.id }),
    );
    expect(err.code).toBe('ApiKey.MemberRoleNotAllowed');
    expect(err.kind).toBe('validation');
    expect(await listApiKeys(engine, { organizationId: organization.id })).toEqual(before);
    expect(before).toHaveLength(2);

    // A member of another organization is not found in this one.
    const other = await seedOrganization(engine);
    const cross = await engineError(() =>
      createOrganizationApiKey(engine, { organizationId: organization.id, memberId: other.owner.id }),
    );
    expect(cross.code).toBe('Member.NotFound');
  });

  it('refuses missing, malformed and unknown keys', async () => {
    const engine = await testEngine();
    const tenant = await newTenant(engine);
    const { key } = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'emisor' });

    for (const missing of [undefined, '']) {
      const err = await engineError(() => authenticate(engine, missing));
      expect(err.code).toBe('Auth.MissingKey');
      expect(err.kind).toBe('unauthenticated');
    }
    const lastChar = key.at(-1) === 'A' ? 'B' : 'A';
    const unknown = `ecf_${randomBytes(6).toString('hex')}_${randomBytes(32).toString('base64url')}`;
    expect(unknown).toMatch(KEY);
    for (const bad of [
      'not-a-key',
      key.slice(0, 16),
      key.slice(0, -1),
      `${key}x`,
      ` ${key}`,
      `Bearer ${key}`,
      key.toUpperCase(),
      key.slice(0, -1) + lastChar, // well-formed, wrong secret
      unknown,
    ]) {
      const err = await engineError(() => authenticate(engine, bad));
      expect(err.code, bad).toBe('Auth.InvalidKey');
      expect(err.kind).toBe('unauthenticated');
    }
    // The real key still works.
    expect((await authenticate(engine, key)).kind).toBe('tenant');
  });

  it('refuses revoked keys, revoked by id or by prefix; revoking twice keeps the first time', async () => {
    const engine = await testEngine();
    const tenant = await newTenant(engine);
    const byId = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'emisor' });
    const byPrefix = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'consultor' });
    const kept = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'admin_tenant' });
    await authenticate(engine, byId.key);
    await authenticate(engine, byPrefix.key);

    engine.clock.advance(5_000);
    const firstRevocation = toDominicanIso(engine.clock.now());
    const r1 = await revokeApiKey(engine, byId.apiKey.id);
    expect(r1.id).toBe(byId.apiKey.id);
    expect(r1.revokedAt).toBe(firstRevocation);
    const r2 = await revokeApiKey(engine, byPrefix.apiKey.prefix);
    expect(r2.id).toBe(byPrefix.apiKey.id);
    expect(r2.revokedAt).toBe(firstRevocation);

    for (const k of [byId, byPrefix]) {
      const err = await engineError(() => authenticate(engine, k.key));
      expect(err.code).toBe('Auth.InvalidKey');
      expect(err.kind).toBe('unauthenticated');
    }
    // Other keys of the tenant are untouched.
    expect(await authenticate(engine, kept.key)).toMatchObject({ tenantId: tenant.id, role: 'admin_tenant' });

    engine.clock.advance(3_600_000);
    const again = await revokeApiKey(engine, byId.apiKey.id);
    expect(again.revokedAt).toBe(firstRevocation);
    const againByPrefix = await revokeApiKey(engine, byId.apiKey.prefix);
    expect(againByPrefix.revokedAt).toBe(firstRevocation);
    const stored = await engine.db.selectFrom('api_keys').select(['id', 'revoked_at']).orderBy('id').execute();
    expect(stored.find((r) => r.id === byId.apiKey.id)!.revoked_at).toBe('2026-03-10T14:00:05.000Z');
    expect(stored.find((r) => r.id === kept.apiKey.id)!.revoked_at).toBeNull();
    await expect(authenticate(engine, byId.key)).rejects.toMatchObject({ code: 'Auth.InvalidKey' });

    const missing = await engineError(() => revokeApiKey(engine, 'ecf_000000000000'));
    expect(missing.code).toBe('ApiKey.NotFound');
  });

  it('writes lastUsedAt on first use and refreshes it only after 60 s', async () => {
    const engine = await testEngine();
    const tenant = await newTenant(engine);
    const { key, apiKey } = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'emisor' });
    const other = await createTenantApiKey(engine, { tenantId: tenant.id, role: 'consultor' });
    const lastUsed = async (id = apiKey.id) => (await listApiKeys(engine)).find((k) => k.id === id)!.lastUsedAt;

    expect(await lastUsed()).toBeNull();
    engine.clock.advance(2_000);
    const first = toDominicanIso(engine.clock.now());
    await authenticate(engine, key);
    expect(await lastUsed()).toBe(first);
    expect(await lastUsed(other.apiKey.id)).toBeNull();

    engine.clock.advance(30_000);
    await authenticate(engine, key);
    expect(await lastUsed()).toBe(first);

    engine.clock.advance(29_999); // 59.999 s after the first use
    await authenticate(engine, key);
    expect(await lastUsed()).toBe(first);

    engine.clock.advance(2); // 60.001 s after the first use
    const second = toDominicanIso(engine.clock.now());
    await authenticate(engine, key);
    expect(await lastUsed()).toBe(second);
    expect(second).not.toBe(first);

    // The window restarts from the refreshed time.
    engine.clock.advance(59_000);
    await authenticate(engine, key);
    expect(await lastUsed()).toBe(second);
    engine.clock.advance(5 * 60_000);
    const third = toDominicanIso(engine.clock.now());
    await authenticate(engine, key);
    expect(await lastUsed()).toBe(third);

    // A refused (revoked) key does not touch lastUsedAt.
    await revokeApiKey(engine, apiKey.id);
    engine.clock.advance(10 * 60_000);
    await expect(authenticate(engine, key)).rejects.toMatchObject({ code: 'Auth.InvalidKey' });
    expect(await lastUsed()).toBe(third);
  });
});
