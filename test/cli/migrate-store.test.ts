import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { cliFor } from '../cli-runner.js';
import { TEST_SERVER_URL, invoice31, seedIssuer, tempDir } from '../helpers.js';
import { databaseUrl, dropDatabase, freshDatabaseName } from '../postgres.js';

const SLOW = 120_000;

/** A data directory on its SQLite file (whatever store the suite runs on) with three e-CF. */
async function sqliteAppliance() {
  const dataDir = tempDir();
  const engine = await openEngine({ dataDir, databaseUrl: null });
  try {
    const { tenant } = await seedIssuer(engine);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await issueEcf(engine, tenant.id, { idempotencyKey: `k${i}`, payload: invoice31({ internalNumber: `FAC-${i}` }) })).ecf.id);
    return { dataDir, tenantId: tenant.id, ids };
  } finally {
    await engine.close();
  }
}

describe('ecf migrate-store', () => {
  it('refuses what it cannot copy into, naming the flag', async () => {
    const { dataDir } = await sqliteAppliance();
    const { json } = cliFor(dataDir);
    expect((await json(['migrate-store', '--to', 'mysql://db/ecf'], undefined, 2)).error.code).toBe('Store.UnsupportedUrl');
    expect((await json(['migrate-store', '--to', 'sqlite'], undefined, 2)).error.code).toBe('Store.SameStore');
  }, SLOW);

  it.skipIf(!TEST_SERVER_URL)('SQLite into PostgreSQL with --switch, and back into a fresh SQLite file', async () => {
    const { dataDir, tenantId, ids } = await sqliteAppliance();
    const name = freshDatabaseName();
    const url = databaseUrl(TEST_SERVER_URL!, name);
    try {
      const { ecf, json } = cliFor(dataDir);
      const copied = await json(['migrate-store', '--to', url, '--switch']);
      expect(copied).toMatchObject({ from: 'sqlite', to: 'postgres', documentsVerified: 3, switched: true });
      expect(copied.tables.find((t: { table: string }) => t.table === 'ecf').rows).toBe(3);
      expect(readFileSync(join(dataDir, 'database-url'), 'utf8').trim()).toBe(url);
      // The data directory now reads PostgreSQL: the same e-CF, and the copy cannot be made twice.
      const listed = await json(['list', '--tenant', tenantId]);
      expect(listed.items.map((e: { id: string }) => e.id).sort()).toEqual([...ids].sort());
      expect((await json(['migrate-store', '--to', url], undefined, 2)).error.code).toBe('Store.SameStore');

      // Back: the old SQLite file still holds its rows, so it must be moved away first.
      const refused = await json(['migrate-store', '--to', 'sqlite'], undefined, 4);
      expect(refused.error.code).toBe('Store.TargetNotEmpty');
      renameSync(join(dataDir, 'ecf.sqlite'), join(dataDir, 'ecf.sqlite.before-postgres'));
      for (const suffix of ['-wal', '-shm']) if (existsSync(join(dataDir, `ecf.sqlite${suffix}`))) renameSync(join(dataDir, `ecf.sqlite${suffix}`), join(dataDir, `ecf.sqlite.before-postgres${suffix}`));
      const human = await ecf(['migrate-store', '--to', 'sqlite', '--switch']);
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toMatch(/copied postgres -> sqlite; every table compared, 3 signed e-CF hashed again: all match; \d+ encrypted-file secrets carried/);
      expect(existsSync(join(dataDir, 'database-url'))).toBe(false);
      expect((await json(['list', '--tenant', tenantId])).items).toHaveLength(3);
    } finally {
      await dropDatabase(TEST_SERVER_URL!, name);
    }
  }, SLOW);
});
