import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../src/engine/data-dir.js';
import { openEngine } from '../../../src/engine/engine.js';
import { STORE, seedTenant, tempDir } from '../../helpers.js';

const pageSize = (dataDir: string) => {
  const db = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    return db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
};

/**
 * A new SQLite store is made with 8 KB pages (docs/store.md, "SQLite"): its
 * ~1,100-byte document rows leave less slack than in 4 KB pages. A page size
 * holds from a file's first write, so a store made by an earlier release keeps
 * its 4 KB pages and works as before.
 */
describe.skipIf(STORE !== 'sqlite')('the SQLite page size', () => {
  it('a new store has 8 KB pages', async () => {
    const dataDir = tempDir();
    const engine = await openEngine({ dataDir });
    await seedTenant(engine);
    await engine.close();
    expect(pageSize(dataDir)).toBe(8192);
  });

  it('a store made with 4 KB pages keeps them, and opens, migrates and writes', async () => {
    const dataDir = tempDir();
    const old = new SQLite(join(dataDir, DATABASE_FILE));
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.exec('create table made_by_an_earlier_release (x)');
    old.close();
    const engine = await openEngine({ dataDir });
    await seedTenant(engine);
    await engine.close();
    expect(pageSize(dataDir)).toBe(4096);
  });
});
