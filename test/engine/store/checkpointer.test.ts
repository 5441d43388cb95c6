import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { DATABASE_FILE } from '../../../src/engine/data-dir.js';
import { newRestartSignal } from '../../../src/engine/store/checkpointer.js';
import { inTransaction, openDatabase } from '../../../src/engine/store/database.js';
import { STORE, tempDir } from '../../helpers.js';

/**
 * The WAL index (the -shm file) holds, in the machine's byte order, the last
 * frame committed to the WAL (mxFrame, byte 16) and how many frames have been
 * copied into the database (nBackfill, byte 96). Reading them watches a
 * checkpoint without running one.
 */
function walProgress(dataDir: string): { mxFrame: number; nBackfill: number } {
  const shm = readFileSync(join(dataDir, `${DATABASE_FILE}-shm`));
  return { mxFrame: shm.readUInt32LE(16), nBackfill: shm.readUInt32LE(96) };
}

describe.runIf(STORE === 'sqlite')('background checkpoints', () => {
  it('a server-style engine never checkpoints in its commits; its thread copies the WAL into the database', async () => {
    const dataDir = tempDir();
    const engine = await openEngine({ dataDir, backgroundCheckpoints: true });
    try {
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(engine.db);
      expect(rows[0]!.wal_autocheckpoint).toBe(0);
      for (let i = 0; i < 50; i++) {
        await engine.db.insertInto('settings').values({ scope: 'platform', key: `k${i}`, value: 'x'.repeat(2000), updated_at: '2026-03-10T14:00:00.000Z' }).execute();
      }
      const written = walProgress(dataDir).mxFrame;
      expect(written).toBeGreaterThan(0);
      await vi.waitFor(() => expect(walProgress(dataDir).nBackfill).toBeGreaterThanOrEqual(written), { timeout: 10_000, interval: 50 });
    } finally {
      await engine.close();
    }
  });

  it('a short-lived engine keeps SQLite’s own checkpoints', async () => {
    const engine = await openEngine({ dataDir: tempDir() });
    try {
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(engine.db);
      expect(rows[0]!.wal_autocheckpoint).toBe(1000);
    } finally {
      await engine.close();
    }
  });
});

describe.runIf(STORE === 'sqlite')('a pending WAL restart', () => {
  it('the writer waits for it before its next transaction, and not forever', async () => {
    const signal = newRestartSignal();
    const db = openDatabase(join(tempDir(), DATABASE_FILE), { restartSignal: signal });
    try {
      const events: string[] = [];
      Atomics.store(signal, 0, 1);
      setTimeout(() => {
        events.push('restart done');
        Atomics.store(signal, 0, 0);
      }, 10);
      await inTransaction(db, async () => void events.push('transaction'));
      expect(events).toEqual(['restart done', 'transaction']);

      // A restart that takes too long only delays the writer: it still goes on.
      Atomics.store(signal, 0, 1);
      await inTransaction(db, async () => void events.push('second transaction'));
      expect(events.at(-1)).toBe('second transaction');
    } finally {
      await db.destroy();
    }
  });
});
