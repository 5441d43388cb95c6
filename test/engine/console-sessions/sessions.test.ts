import { describe, expect, it } from 'vitest';
import {
  ABSOLUTE_MS,
  IDLE_MS,
  closeConsoleSession,
  openConsoleSession,
  resolveConsoleSession,
} from '../../../src/engine/console-sessions/index.js';
import { revokeApiKey } from '../../../src/engine/tenants/index.js';
import { cleanStore, countCleanable } from '../../../src/engine/retention/clean.js';
import { EPHEMERAL_TABLES } from '../../../src/engine/backup/copy-store.js';
import { EngineError } from '../../../src/engine/errors.js';
import { organizationKey, seedOrganization, seedTenant, testEngine } from '../../helpers.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function seenAt(engine: Awaited<ReturnType<typeof testEngine>>) {
  return (await engine.db.selectFrom('console_sessions').select('seen_at').executeTakeFirstOrThrow()).seen_at;
}

describe('console sessions', () => {
  it('opens with a tenant key, stores only the hash of a random 32-byte token, and resolves to the principal and its CSRF token', async () => {
    const engine = await testEngine();
    const { tenant, keys } = await seedTenant(engine);
    const opened = await openConsoleSession(engine, keys.emisor);
    expect(Buffer.from(opened.token, 'base64url')).toHaveLength(32);
    expect(opened.principal).toMatchObject({ kind: 'tenant', tenantId: tenant.id, role: 'emisor' });
    expect(opened.expiresAt.getTime() - engine.clock.now().getTime()).toBe(ABSOLUTE_MS);
    const rows = await engine.db.selectFrom('console_sessions').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(opened.token);
    const resolved = await resolveConsoleSession(engine, opened.token);
    expect(resolved).toMatchObject({ principal: opened.principal, csrf: opened.csrf });
    // Unknown, empty and absurd tokens resolve to nothing.
    expect(await resolveConsoleSession(engine, opened.token.slice(1))).toBeNull();
    expect(await resolveConsoleSession(engine, undefined)).toBeNull();
    expect(await resolveConsoleSession(engine, 'x'.repeat(10_000))).toBeNull();
    expect(EPHEMERAL_TABLES).toContain('console_sessions');
  });

  it('refuses a wrong key and an organization key, each with its own reason, and stores nothing', async () => {
    const engine = await testEngine();
    const org = await seedOrganization(engine);
    const orgKey = await organizationKey(engine, org.organization.id, org.owner.id);
    await expect(openConsoleSession(engine, 'ecf_000000000000_' + 'a'.repeat(43))).rejects.toMatchObject({ kind: 'unauthenticated', code: 'Auth.InvalidKey' });
    await expect(openConsoleSession(engine, '')).rejects.toMatchObject({ kind: 'unauthenticated', code: 'Auth.MissingKey' });
    const refused = await openConsoleSession(engine, orgKey).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EngineError);
    expect(refused).toMatchObject({ kind: 'forbidden', code: 'Console.OrganizationKey' });
    expect((refused as Error).message).toMatch(/organization key/);
    expect(await engine.db.selectFrom('console_sessions').selectAll().execute()).toEqual([]);
  });

  it('slides seen_at at most once a minute and ends after 8 h idle', async () => {
    const engine = await testEngine();
    const { keys } = await seedTenant(engine);
    const { token } = await openConsoleSession(engine, keys.consultor);
    const opened = await seenAt(engine);
    engine.clock.advance(30_000);
    expect(await resolveConsoleSession(engine, token)).not.toBeNull();
    expect(await seenAt(engine)).toBe(opened);
    engine.clock.advance(30_000);
    expect(await resolveConsoleSession(engine, token)).not.toBeNull();
    expect(await seenAt(engine)).toBe(engine.clock.now().toISOString());
    engine.clock.advance(IDLE_MS - 1);
    expect(await resolveConsoleSession(engine, token)).not.toBeNull();
    engine.clock.advance(IDLE_MS);
    expect(await resolveConsoleSession(engine, token)).toBeNull();
    // The ended session's row went with it.
    expect(await engine.db.selectFrom('console_sessions').selectAll().execute()).toEqual([]);
  });

  it('ends 12 h after sign-in however busy', async () => {
    const engine = await testEngine();
    const { keys } = await seedTenant(engine);
    const { token } = await openConsoleSession(engine, keys.admin_tenant);
    for (let h = 1; h < 12; h++) {
      engine.clock.advance(HOUR);
      expect(await resolveConsoleSession(engine, token), `hour ${h}`).not.toBeNull();
    }
    engine.clock.advance(HOUR - 1);
    expect(await resolveConsoleSession(engine, token)).not.toBeNull();
    engine.clock.advance(1);
    expect(await resolveConsoleSession(engine, token)).toBeNull();
  });

  it('ends at once when its key is revoked', async () => {
    const engine = await testEngine();
    const { keys } = await seedTenant(engine);
    const { token, principal } = await openConsoleSession(engine, keys.emisor);
    expect(await resolveConsoleSession(engine, token)).not.toBeNull();
    await revokeApiKey(engine, principal.keyId);
    expect(await resolveConsoleSession(engine, token)).toBeNull();
  });

  it('closes: the token stops working; closing again or an unknown token does nothing', async () => {
    const engine = await testEngine();
    const { keys } = await seedTenant(engine);
    const a = await openConsoleSession(engine, keys.emisor);
    const b = await openConsoleSession(engine, keys.emisor);
    await closeConsoleSession(engine, a.token);
    await closeConsoleSession(engine, a.token);
    await closeConsoleSession(engine, 'unknown');
    expect(await resolveConsoleSession(engine, a.token)).toBeNull();
    expect(await resolveConsoleSession(engine, b.token)).not.toBeNull();
  });

  it('the store-clean job removes idle and absolutely expired sessions and leaves live ones', async () => {
    const engine = await testEngine();
    const { keys } = await seedTenant(engine);
    const busy = await openConsoleSession(engine, keys.emisor);
    const idle = await openConsoleSession(engine, keys.emisor);
    const removed = async () =>
      (await cleanStore(engine, { pauseMs: 0 })).rules.find((r) => r.rule === 'console_sessions')?.rows ?? 0;
    expect(await removed()).toBe(0);
    // busy is used every 4 h; idle never again.
    engine.clock.advance(4 * HOUR);
    await resolveConsoleSession(engine, busy.token);
    engine.clock.advance(4 * HOUR);
    await resolveConsoleSession(engine, busy.token);
    expect((await countCleanable(engine)).cleanable).toBe(1);
    expect(await removed()).toBe(1);
    expect(await resolveConsoleSession(engine, busy.token)).not.toBeNull();
    engine.clock.advance(3 * HOUR);
    await resolveConsoleSession(engine, busy.token);
    engine.clock.advance(HOUR);
    // 12 h since sign-in: the busy one has expired too.
    expect(await removed()).toBe(1);
    expect(await engine.db.selectFrom('console_sessions').selectAll().execute()).toEqual([]);
    void idle;
  });
});
