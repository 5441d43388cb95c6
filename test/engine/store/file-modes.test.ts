import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../src/engine/data-dir.js';
import { openEngine } from '../../../src/engine/engine.js';
import { walCompanions } from '../../../src/engine/store/file-modes.js';
import { cliFor } from '../../cli-runner.js';
import { STORE, seedTenant, tempDir } from '../../helpers.js';

/**
 * The SQLite store holds fiscal and personal data: the database file and its
 * -wal and -shm files are readable by their owner only (0600), whatever the
 * umask, from the first open and after writes; a store left looser by an
 * earlier version is tightened when opened.
 */

const modeOf = (path: string) => statSync(path).mode & 0o777;
const storeFiles = (dataDir: string) => {
  const file = join(dataDir, DATABASE_FILE);
  return [file, ...walCompanions(file)];
};

// Modes are a Unix matter; on PostgreSQL there is no store file.
describe.skipIf(process.platform === 'win32' || STORE !== 'sqlite')('store file modes', () => {
  let umask: number;
  beforeEach(() => {
    // The common default: without the fix, new files come out 0644.
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
  });

  it('creates ecf.sqlite, its -wal and -shm 0600 and keeps them so after writes', async () => {
    const dataDir = tempDir();
    const engine = await openEngine({ dataDir });
    try {
      for (const path of storeFiles(dataDir)) {
        expect(existsSync(path), path).toBe(true);
        expect(modeOf(path).toString(8), path).toBe('600');
      }
      await seedTenant(engine);
      for (const path of storeFiles(dataDir)) expect(modeOf(path).toString(8), path).toBe('600');
      expect(statSync(walCompanions(join(dataDir, DATABASE_FILE))[0]!).size).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
  });

  it('the server’s way of opening (background checkpoints) too', async () => {
    const dataDir = tempDir();
    const engine = await openEngine({ dataDir, backgroundCheckpoints: true });
    try {
      await seedTenant(engine);
      for (const path of storeFiles(dataDir)) expect(modeOf(path).toString(8), path).toBe('600');
    } finally {
      await engine.close();
    }
  });

  it('gives 0600, not less, under a umask that also takes owner bits', async () => {
    process.umask(0o277);
    const dataDir = tempDir();
    const engine = await openEngine({ dataDir });
    try {
      await seedTenant(engine);
      for (const path of storeFiles(dataDir)) expect(modeOf(path).toString(8), path).toBe('600');
    } finally {
      await engine.close();
    }
  });

  it('tightens a database, -wal and -shm that an earlier version left world-readable', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, DATABASE_FILE);
    // As before the fix: SQLite creates the file under the umask, 0644, and the WAL files after it.
    const earlier = new SQLite(file);
    try {
      earlier.pragma('journal_mode = WAL');
      earlier.exec('create table leftover (x); insert into leftover values (1)');
      for (const path of storeFiles(dataDir)) expect(modeOf(path).toString(8), path).toBe('644');
      const engine = await openEngine({ dataDir });
      try {
        for (const path of storeFiles(dataDir)) expect(modeOf(path).toString(8), path).toBe('600');
        await seedTenant(engine);
        for (const path of storeFiles(dataDir)) expect(modeOf(path).toString(8), path).toBe('600');
      } finally {
        await engine.close();
      }
    } finally {
      earlier.close();
    }
  });

  it('`ecf init --yes` leaves the store 0600', async () => {
    const dataDir = tempDir();
    const { ecf } = cliFor(dataDir);
    const init = await ecf(['init', '--yes']);
    expect(init.code, init.stderr + init.stdout).toBe(0);
    const file = join(dataDir, DATABASE_FILE);
    expect(modeOf(file).toString(8)).toBe('600');
    // The CLI closed its connections: SQLite removes the WAL files then, or leaves them with the file's mode.
    for (const path of walCompanions(file)) if (existsSync(path)) expect(modeOf(path).toString(8), path).toBe('600');
  });
});
