import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, inject } from 'vitest';
import { ManualClock } from '../src/engine/clock.js';
import { openEngine } from '../src/engine/engine.js';
import type { Engine } from '../src/engine/engine-types.js';
import { createOrganization } from '../src/engine/tenants/organizations.js';
import { createTenant } from '../src/engine/tenants/tenants.js';
import { createOrganizationApiKey, createTenantApiKey } from '../src/engine/tenants/api-keys.js';
import { setEmitterProfile } from '../src/engine/tenants/emitter-profile.js';
import type { TenantRole } from '../src/engine/tenants/schemas.js';
import { DATABASE_FILE, DATABASE_URL_FILE } from '../src/engine/data-dir.js';
import { emitterProfile } from './fixtures/payloads.js';
import { TEST_SERVER_URL, createFromTemplate, databaseUrl, dropDatabase, freshDatabaseName } from './postgres.js';

export { TEST_SERVER_URL } from './postgres.js';
export { emitterProfile, invoice31 } from './fixtures/payloads.js';
/** The store the suite runs against this time. */
export const STORE: 'sqlite' | 'postgres' = TEST_SERVER_URL ? 'postgres' : 'sqlite';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A fresh directory removed after the test. */
export function tempDir(label = 'ecf-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), label));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A fresh directory to open engines and run `ecf` on. On PostgreSQL its
 * `database-url` file names a database of its own, which the first engine
 * opened there creates (and migrates); it is dropped after the test.
 */
export function testDataDir(label = 'ecf-test-'): string {
  const dir = tempDir(label);
  if (TEST_SERVER_URL) {
    const server = TEST_SERVER_URL;
    const name = freshDatabaseName();
    writeFileSync(join(dir, DATABASE_URL_FILE), databaseUrl(server, name) + '\n', { mode: 0o600 });
    cleanups.push(() => dropDatabase(server, name));
  }
  return dir;
}

/** The migrated SQLite store test/global-setup.ts made for this run; undefined outside a vitest run that ran it. */
export function sqliteTemplateDir(): string | undefined {
  try {
    return inject('sqliteTemplateDir');
  } catch {
    return undefined;
  }
}

/** A real store (a SQLite file, or a PostgreSQL database) in its own directory, migrated, with a clock that moves only when told. */
export async function testEngine(clock = new ManualClock('2026-03-10T14:00:00.000Z')): Promise<Engine & { clock: ManualClock }> {
  const dataDir = tempDir();
  if (TEST_SERVER_URL) {
    const server = TEST_SERVER_URL;
    const name = await createFromTemplate(server);
    cleanups.push(() => dropDatabase(server, name));
    writeFileSync(join(dataDir, DATABASE_URL_FILE), databaseUrl(server, name) + '\n', { mode: 0o600 });
  }
  const template = TEST_SERVER_URL ? undefined : sqliteTemplateDir();
  // Only the migrated, empty store is in the template (no key, no secret): a copy is what migrating gives.
  if (template) copyFileSync(join(template, DATABASE_FILE), join(dataDir, DATABASE_FILE));
  const engine = await openEngine({ dataDir, clock });
  cleanups.push(() => engine.close());
  return engine as Engine & { clock: ManualClock };
}

let rncCounter = 100000000;
export const nextRnc = (): string => String(++rncCounter);

export async function seedOrganization(engine: Engine, plan = 'office', limits?: Record<string, number>) {
  return createOrganization(engine, { name: 'Contadores Unidos', plan, owner: { name: 'Ana Pérez' }, ...(limits && { limits }) });
}

/** A tenant with an emitter profile and one key per role. */
export async function seedTenant(engine: Engine, options: { organizationId?: string; profile?: boolean } = {}) {
  const tenant = await createTenant(engine, {
    rnc: nextRnc(),
    legalName: 'Ferretería Ñoño SRL',
    tradeName: 'Ferretería Ñoño',
    ...(options.organizationId && { organizationId: options.organizationId }),
  });
  if (options.profile !== false) {
    await setEmitterProfile(engine, tenant.id, emitterProfile);
  }
  const keys = {} as Record<TenantRole, string>;
  for (const role of ['admin_tenant', 'emisor', 'consultor'] as const) {
    keys[role] = (await createTenantApiKey(engine, { tenantId: tenant.id, role })).key;
  }
  return { tenant, keys };
}

export async function organizationKey(engine: Engine, organizationId: string, memberId: string) {
  return (await createOrganizationApiKey(engine, { organizationId, memberId })).key;
}

/**
 * The project's shared documents (contract, authority notes, schemas): beside
 * the checkout as CI has them, or beside the repository this one was cloned
 * from (a clean clone in a temporary directory), or where ECF_SHARED_DIR says.
 */
export function sharedDir(): string {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const candidates = [process.env.ECF_SHARED_DIR, join(root, '..', 'shared')];
  try {
    const origin = execFileSync('git', ['config', '--get', 'remote.origin.url'], { cwd: root, encoding: 'utf8' }).trim();
    if (origin.startsWith('/')) candidates.push(join(origin, '..', 'shared'));
  } catch {
    // not a clone: the first two candidates are all there is
  }
  const found = candidates.find((c): c is string => !!c && existsSync(join(c, 'spec', 'service-contract.md')));
  if (!found) throw new Error(`shared documents not found in ${candidates.filter(Boolean).join(', ')}; set ECF_SHARED_DIR`);
  return found;
}

/**
 * A tenant ready to issue: emitter profile, a signing certificate made now,
 * and a range of every type in its default environment (test).
 */
export async function seedIssuer(engine: Engine, options: { organizationId?: string; rangeSize?: number } = {}) {
  const { uploadCertificate } = await import('../src/engine/certificates/certificates.js');
  const { addRange } = await import('../src/engine/sequences/ranges.js');
  const { makeIdentity, makeP12 } = await import('./certs.js');
  const seeded = await seedTenant(engine, options);
  const password = 'clave-ñ';
  await uploadCertificate(engine, seeded.tenant.id, { file: makeP12(makeIdentity({ serialNumber: `IDCDO-${seeded.tenant.rnc}` }), password), password });
  for (const type of [31, 32, 33, 34, 41, 43, 44, 45, 46, 47]) {
    await addRange(engine, {
      tenantId: seeded.tenant.id,
      environment: 'test',
      type,
      rangeFrom: 1,
      rangeTo: options.rangeSize ?? 1000,
      expiresOn: type === 32 || type === 34 ? null : '2035-12-31', // far ahead: CLI tests run on the real clock
    });
  }
  return seeded;
}

/**
 * Everything the store holds, as bytes to search for secrets that must not
 * be there: the SQLite file (checkpointed, so nothing waits in the WAL), or
 * on PostgreSQL every row of every table as text and every bytea value raw.
 */
export async function storedBytes(engine: Engine): Promise<Buffer> {
  const { sql } = await import('kysely');
  if (engine.dialect === 'sqlite') {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(engine.db);
    return readFileSync(join(engine.dataDir, 'ecf.sqlite'));
  }
  const parts: Buffer[] = [];
  const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(engine.db);
  for (const { name } of tables.rows) {
    const rows = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} t`.execute(engine.db);
    parts.push(...rows.rows.map((r) => Buffer.from(r.row)));
  }
  const blobs = await sql<{ t: string; c: string }>`select table_name as t, column_name as c from information_schema.columns where table_schema = 'public' and data_type = 'bytea'`.execute(engine.db);
  for (const { t, c } of blobs.rows) {
    const rows = await sql<{ v: Buffer | null }>`select ${sql.ref(c)} as v from ${sql.table(t)}`.execute(engine.db);
    parts.push(...rows.rows.flatMap((r) => (r.v ? [r.v] : [])));
  }
  return Buffer.concat(parts);
}

/** Polls `check` in real time until it holds (for what another thread or process does); gives up after `timeoutMs`. */
export async function waitUntil(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
}
