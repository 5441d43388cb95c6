import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { allocate, listRanges } from '../../../src/engine/sequences/ranges.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { onceInCluster } from '../../../src/engine/store/locking.js';
import { migrateTo, migrateToLatest, migrationStatus } from '../../../src/engine/store/migrate.js';
import { STORE, invoice31, seedIssuer, testDataDir, testEngine } from '../../helpers.js';

/**
 * Several engines on one store, as several processes behind a load balancer
 * would be: each opens its own connections. On SQLite the writers queue on
 * the file lock; on PostgreSQL row locks, unique indexes and advisory locks
 * must give the same answers.
 */
const BURST = 25;

async function twoEngines() {
  const a = await testEngine();
  const b = await openEngine({ dataDir: a.dataDir, clock: a.clock });
  return { a, b, close: () => b.close() };
}

describe('several engines on one store', () => {
  // On SQLite the two engines of one process wait for the write lock between event-loop turns (store/database.ts), as two processes would.
  it('never hands out one e-NCF twice when engines allocate at the same time', async () => {
    const { a, b, close } = await twoEngines();
    try {
      const { tenant } = await seedIssuer(a);
      const each = (engine: Engine) => Array.from({ length: BURST }, () => allocate(engine, tenant.id, { environment: 'test', type: 31 }));
      const numbers = (await Promise.all([...each(a), ...each(b)])).map((x) => x.encf);
      expect(new Set(numbers).size).toBe(2 * BURST);
      const range = (await listRanges(a, tenant.id)).find((r) => r.type === 31 && r.environment === 'test')!;
      expect(range.next).toBe(2 * BURST + 1);
    } finally {
      await close();
    }
  });

  it('issues one e-CF for one key sent to two engines at once, the others answering as replays', async () => {
    const { a, b, close } = await twoEngines();
    try {
      const { tenant } = await seedIssuer(a);
      const results = await Promise.all(
        Array.from({ length: BURST }, (_, i) => issueEcf(i % 2 ? a : b, tenant.id, { idempotencyKey: 'one-sale', payload: invoice31({ internalNumber: 'FAC-1' }) })),
      );
      expect(new Set(results.map((r) => r.ecf.id)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      // Another key with the same internal number is the same sale.
      const again = await issueEcf(b, tenant.id, { idempotencyKey: 'other-key', payload: invoice31({ internalNumber: 'FAC-1' }) });
      expect(again).toMatchObject({ created: false, ecf: { id: results[0]!.ecf.id } });
      expect(await a.db.selectFrom('ecf').select('id').execute()).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('runs a once-per-cluster job in one transaction at a time', async () => {
    const { a, b, close } = await twoEngines();
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const first = inTransaction(a.db, async (tx) => {
        const got = await onceInCluster(tx, 'test-job');
        entered();
        await held;
        return got;
      });
      await inside;
      if (STORE === 'postgres') {
        expect(await inTransaction(b.db, (tx) => onceInCluster(tx, 'test-job'))).toBe(false);
        expect(await inTransaction(b.db, (tx) => onceInCluster(tx, 'another-job'))).toBe(true);
      }
      release();
      expect(await first).toBe(true);
      expect(await inTransaction(b.db, (tx) => onceInCluster(tx, 'test-job'))).toBe(true);
    } finally {
      await close();
    }
  });
});

describe('migrations on the store in use', () => {
  it('migrates a new store to latest, down to none and up again', async () => {
    const engine = await openEngine({ dataDir: testDataDir() });
    try {
      const applied = await migrationStatus(engine.db);
      expect(applied.every((m) => m.executedAt !== null)).toBe(true);
      await migrateTo(engine.db, 'none');
      expect((await migrationStatus(engine.db)).every((m) => m.executedAt === null)).toBe(true);
      await migrateToLatest(engine.db);
      expect((await migrationStatus(engine.db)).every((m) => m.executedAt !== null)).toBe(true);
      const { tenant } = await seedIssuer(engine);
      // The counters kept by triggers came back with their tables.
      await issueEcf(engine, tenant.id, { idempotencyKey: 'k', payload: invoice31() });
      expect(await engine.db.selectFrom('ecf_counts').select('n').execute()).toEqual([{ n: 1 }]);
    } finally {
      await engine.close();
    }
  });
});
