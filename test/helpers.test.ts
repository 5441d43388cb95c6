import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../src/engine/data-dir.js';
import { STORE, sqliteTemplateDir, tempDir, testEngine } from './helpers.js';

// The test kit's stores: on SQLite, testEngine() starts from the file test/global-setup.ts migrated once.
describe.skipIf(STORE === 'postgres')('testEngine on SQLite', () => {
  it('copies the store migrated once per run instead of migrating a new file: the same migrations, recorded at the same instants, and no rows', async () => {
    const template = sqliteTemplateDir();
    expect(template).toBeDefined();
    // Read from a copy: the template itself is never opened by a test.
    const copy = join(tempDir(), DATABASE_FILE);
    copyFileSync(join(template!, DATABASE_FILE), copy);
    const raw = new Database(copy, { readonly: true });
    const expected = raw.prepare('select name, timestamp from kysely_migration order by name').all();
    raw.close();
    expect(expected.length).toBeGreaterThan(0);

    const engine = await testEngine();
    const migrations = await engine.db.selectFrom('kysely_migration' as never).select(['name', 'timestamp'] as never).orderBy('name' as never).execute();
    expect(migrations).toEqual(expected);
    expect(await engine.db.selectFrom('tenants').select('id').execute()).toEqual([]);
  });
});
