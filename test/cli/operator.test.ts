import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEcf } from '../cli-runner.js';

/**
 * The operator's CLI end to end: the built program (`npm test` builds dist
 * first), run in-process (test/cli-runner.ts), over a fresh data directory
 * per test. Each test walks a whole story.
 */

const SLOW = 120_000;

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function cli() {
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-cli-'));
  dirs.push(dataDir);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.ECF_DATA_DIR;

  /** Runs `ecf <args> --data-dir <dir>`; never throws on a non-zero exit. */
  async function ecf(...args: string[]): Promise<Result> {
    const r = await runEcf([...args, '--data-dir', dataDir], { env });
    return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
  }

  /** Runs with `--json`, expects success and returns the parsed output. */
  async function json<T = any>(...args: string[]): Promise<T> {
    const r = await ecf(...args, '--json');
    expect(r.code, `ecf ${args.join(' ')} --json failed:\n${r.stderr}${r.stdout}`).toBe(0);
    return JSON.parse(r.stdout) as T;
  }

  return { ecf, json, dataDir };
}

describe('ecf CLI for the operator', () => {
  it('lists the operator topics in its help', async () => {
    const { ecf } = cli();
    const r = await ecf('--help');
    expect(r.code).toBe(0);
    const topics = r.stdout.slice(r.stdout.indexOf('TOPICS'));
    for (const topic of ['org', 'tenant', 'key', 'settings']) {
      expect(topics).toMatch(new RegExp(`^\\s+${topic}\\s`, 'm'));
    }
  });

  it(
    'tenant profile refuses characters XML cannot carry, naming the field, and keeps the profile',
    async () => {
      const { ecf, json } = cli();
      await json('tenant', 'create', '--rnc', '131234567', '--legal-name', 'Ferretería Ñoño SRL');
      const profile = await json('tenant', 'profile', '131234567', '--address', 'Calle El Conde 12', '--activity', 'Venta de herramientas');
      // A NUL cannot be an argument; the others can, and each broke every later e-CF of the tenant.
      for (const bad of ['\u0001', '\u000B', '\u001F', '\uFFFE', '\uFFFF']) {
        const r = await ecf('tenant', 'profile', '131234567', '--address', `Calle${bad}El Conde`, '--activity', `Venta${bad}`);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/address.*without control characters/);
        expect(r.stderr).toMatch(/economicActivity.*without control characters/);
      }
      expect((await json('tenant', 'show', '131234567')).emitterProfile).toEqual(profile);
    },
    SLOW,
  );

  it(
    'sets up an organization, a tenant with its profile and keys shown once, then revokes a key',
    async () => {
      const { ecf, json } = cli();

      const created = await json('org', 'create', '--name', 'Contadores Unidos', '--plan', 'office',
        '--max-members', '3', '--owner-name', 'Ana Pérez', '--owner-email', 'ana@contadores.do');
      expect(created.organization).toMatchObject({ name: 'Contadores Unidos', plan: 'office', memberCount: 1 });
      expect(created.organization.limits).toEqual({ maxTenants: 10, monthlyEcfQuota: 20_000, maxMembers: 3 });
      expect(created.owner).toMatchObject({ name: 'Ana Pérez', email: 'ana@contadores.do', role: 'owner' });
      const orgId: string = created.organization.id;
      const ownerId: string = created.owner.id;

      const member = await json('org', 'member', 'add', '--org', orgId, '--name', 'Luis Gómez', '--role', 'member');
      expect(member).toMatchObject({ organizationId: orgId, name: 'Luis Gómez', role: 'member', email: null });
      const members = await json<{ id: string }[]>('org', 'member', 'list', '--org', orgId);
      expect(members.map((m) => m.id)).toEqual([ownerId, member.id]);

      const tenant = await json('tenant', 'create', '--rnc', '131234567', '--legal-name', 'Ferretería Ñoño SRL', '--org', orgId);
      expect(tenant).toMatchObject({ rnc: '131234567', organizationId: orgId, defaultEnvironment: 'test' });

      // No profile yet: show says so rather than failing.
      expect(await json('tenant', 'show', '131234567')).toEqual({ tenant, emitterProfile: null });

      const profile = await json('tenant', 'profile', '131234567', '--address', 'Calle El Conde 12',
        '--municipality', '010100', '--province', '010000', '--activity', 'Venta de herramientas',
        '--phone', '809-555-1234', '--phone', '829-555-0000');
      expect(profile).toMatchObject({
        tenantId: tenant.id,
        address: 'Calle El Conde 12',
        municipality: '010100',
        economicActivity: 'Venta de herramientas',
        phones: ['809-555-1234', '829-555-0000'],
        email: null,
      });
      // A later call changes only the given fields.
      const changed = await json('tenant', 'profile', tenant.id, '--email', 'caja@ferreteria.do');
      expect(changed).toMatchObject({ address: 'Calle El Conde 12', email: 'caja@ferreteria.do', phones: profile.phones });

      const updated = await json('tenant', 'update', '131234567', '--trade-name', 'Ferretería Ñoño', '--env', 'cert');
      expect(updated).toMatchObject({ id: tenant.id, tradeName: 'Ferretería Ñoño', defaultEnvironment: 'cert' });
      const shown = await json('tenant', 'show', tenant.id);
      expect(shown.tenant).toEqual(updated);
      expect(shown.emitterProfile).toMatchObject({ tenantId: tenant.id, email: 'caja@ferreteria.do', defaultEnvironment: 'cert' });

      // A tenant outside any organization, attached afterwards.
      const loose = await json('tenant', 'create', '--rnc', '40212345678', '--legal-name', 'Juan Ñoño');
      expect(loose.organizationId).toBeNull();
      expect(await json('tenant', 'attach', '40212345678', '--org', orgId)).toMatchObject({ id: loose.id, organizationId: orgId });
      const inOrg = await json<{ id: string }[]>('tenant', 'list', '--org', orgId);
      expect(inOrg.map((t) => t.id)).toEqual([tenant.id, loose.id]);
      expect(await json('org', 'show', orgId)).toMatchObject({ id: orgId, tenantCount: 2, memberCount: 2 });
      expect((await json<{ id: string }[]>('org', 'list')).map((o) => o.id)).toEqual([orgId]);

      // The human form shows the whole key once, with the warning.
      const made = await ecf('key', 'create', '--tenant', '131234567', '--role', 'emisor', '--name', 'Caja 1');
      expect(made.code, made.stderr).toBe(0);
      const key = /ecf_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/.exec(made.stdout)?.[0];
      expect(key).toBeDefined();
      expect(made.stdout.split(key!).length - 1).toBe(1);
      expect(made.stdout).toMatch(/cannot be shown again/);
      const prefix = key!.slice(0, 'ecf_'.length + 12);

      // The JSON form gives the key to scripts, next to its record.
      const orgKey = await json('key', 'create', '--org', orgId, '--member', ownerId, '--name', 'Portal');
      expect(orgKey.apiKey).toMatchObject({ role: 'org_owner', organizationId: orgId, memberId: ownerId, tenantId: null });
      expect(orgKey.key.startsWith(`${orgKey.apiKey.prefix}_`)).toBe(true);

      const listed = await ecf('key', 'list', '--json');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(prefix);
      expect(listed.stdout).not.toContain(key);
      expect(listed.stdout).not.toContain(orgKey.key);
      const keys = JSON.parse(listed.stdout) as { prefix: string; revokedAt: string | null }[];
      expect(keys.map((k) => k.prefix)).toEqual([prefix, orgKey.apiKey.prefix]);
      const tenantKeys = await json<{ prefix: string }[]>('key', 'list', '--tenant', tenant.id);
      expect(tenantKeys.map((k) => k.prefix)).toEqual([prefix]);

      const revoked = await json('key', 'revoke', prefix);
      expect(revoked).toMatchObject({ prefix, name: 'Caja 1' });
      expect(revoked.revokedAt).toEqual(expect.any(String));
      const gone = await ecf('key', 'revoke', 'ecf_000000000000');
      expect(gone.code).toBe(3);
      expect(gone.stderr).toContain('ApiKey.NotFound');
    },
    SLOW,
  );

  it(
    'lets the parser reject a key for both or neither of a tenant and an organization',
    async () => {
      const { ecf } = cli();
      const neither = await ecf('key', 'create', '--name', 'x');
      expect(neither.code).toBe(2);
      expect(neither.stderr).toMatch(/Exactly one of the following must be provided: --org, --tenant/);
      const both = await ecf('key', 'create', '--tenant', '131234567', '--role', 'emisor', '--org', 'o', '--member', 'm');
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/cannot also be provided/);
      const noRole = await ecf('key', 'create', '--tenant', '131234567');
      expect(noRole.code).toBe(2);
      expect(noRole.stderr).toMatch(/--role/);
    },
    SLOW,
  );

  it(
    "stops at the plan's tenant cap",
    async () => {
      const { ecf, json } = cli();
      const { organization } = await json('org', 'create', '--name', 'Ferretería Ñoño', '--plan', 'office',
        '--max-tenants', '1', '--owner-name', 'Juan Ñoño');
      expect(organization.limits.maxTenants).toBe(1);
      await json('tenant', 'create', '--rnc', '131234567', '--legal-name', 'Primera SRL', '--org', organization.id);

      const second = await ecf('tenant', 'create', '--rnc', '131234568', '--legal-name', 'Segunda SRL', '--org', organization.id);
      expect(second.code).toBe(4);
      expect(second.stderr).toContain('Error [Organization.TenantCapReached]');

      // Attaching an existing tenant is held to the same cap; --json reports the error as JSON.
      await json('tenant', 'create', '--rnc', '131234569', '--legal-name', 'Suelta SRL');
      const attach = await ecf('tenant', 'attach', '131234569', '--org', organization.id, '--json');
      expect(attach.code).toBe(4);
      expect(JSON.parse(attach.stdout)).toMatchObject({ error: { code: 'Organization.TenantCapReached' } });
    },
    SLOW,
  );

  it(
    'sets, reads and unsets settings, platform-wide and per tenant, rejecting bad values',
    async () => {
      const { ecf, json } = cli();
      const tenant = await json('tenant', 'create', '--rnc', '131234567', '--legal-name', 'Ferretería Ñoño SRL');

      const bad = await ecf('settings', 'set', 'retry.max', '50');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('Error [Validation.Failed]');
      expect(bad.stderr).toMatch(/value: must be an integer from 0 to 20 \(IntegerMaximum\)/);

      const platform = await json('settings', 'set', 'retry.max', '5');
      expect(platform).toMatchObject({ key: 'retry.max', value: 5, source: 'platform' });

      // Plain text that is not JSON is taken as text.
      const own = await json('settings', 'set', 'alerts.business_hours', '08:00-18:00', '--tenant', '131234567');
      expect(own).toMatchObject({ value: '08:00-18:00', source: 'tenant' });
      const mode = await json('settings', 'set', 'sequences.mode', 'external', '--tenant', '131234567');
      expect(mode).toMatchObject({ value: 'external', source: 'tenant' });

      expect(await json('settings', 'get', 'sequences.mode', '--tenant', tenant.id)).toMatchObject({
        value: 'external',
        source: 'tenant',
        default: 'managed',
      });

      const list = await json<{ key: string; value: unknown; source: string }[]>('settings', 'list', '--tenant', '131234567');
      const byKey = Object.fromEntries(list.map((s) => [s.key, s]));
      expect(byKey['retry.max']).toMatchObject({ value: 5, source: 'platform' });
      expect(byKey['sequences.mode']).toMatchObject({ value: 'external', source: 'tenant' });
      expect(byKey['alerts.business_hours']).toMatchObject({ value: '08:00-18:00', source: 'tenant' });

      expect(await json('settings', 'unset', 'sequences.mode', '--tenant', '131234567')).toMatchObject({
        value: 'managed',
        source: 'default',
      });
      expect(await json('settings', 'unset', 'retry.max')).toMatchObject({ value: 3, source: 'default' });
      const platformList = await json<{ source: string }[]>('settings', 'list');
      expect(platformList.every((s) => s.source === 'default')).toBe(true);

      const platformOnly = await ecf('settings', 'set', 'webhooks.development_mode', 'true', '--tenant', '131234567');
      expect(platformOnly.code).toBe(2);
      expect(platformOnly.stderr).toContain('Settings.PlatformOnly');
    },
    SLOW,
  );
});
