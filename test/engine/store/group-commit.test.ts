import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { listRanges } from '../../../src/engine/sequences/ranges.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { inGroupCommit } from '../../../src/engine/store/group-commit.js';
import type { Tx } from '../../../src/engine/store/database.js';
import { createRowTrigger } from '../../../src/engine/store/migrations/ddl.js';
import { STORE, invoice31, seedIssuer, testEngine } from '../../helpers.js';

const put = (tx: Tx, key: string) => tx.insertInto('platform_state').values({ key, value: '"x"', updated_at: '2026-03-10T14:00:00.000Z' }).execute();

describe('group commit', () => {
  it('units queued together share a transaction, in order; one that throws is rolled back alone', async () => {
    const engine = await testEngine();
    const seen: string[] = [];
    const results = await Promise.allSettled([
      inGroupCommit(engine.db, async (tx) => {
        await put(tx, 'a');
        return 'a';
      }),
      inGroupCommit(engine.db, async (tx) => {
        await put(tx, 'b');
        throw new Error('b refused after writing');
      }),
      inGroupCommit(engine.db, async (tx) => {
        // The first unit's row is visible: same transaction, and it ran first.
        seen.push(...(await tx.selectFrom('platform_state').select('key').where('key', 'in', ['a', 'b']).execute()).map((r) => r.key));
        await put(tx, 'c');
        return 'c';
      }),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a', 'b refused after writing', 'c']);
    expect(seen).toEqual(['a']);
    const keys = (await engine.db.selectFrom('platform_state').select('key').where('key', 'in', ['a', 'b', 'c']).orderBy('key').execute()).map((r) => r.key);
    expect(keys).toEqual(['a', 'c']);
  });

  it('answers only once the shared transaction has committed: another connection already sees the rows', async () => {
    const engine = await testEngine();
    const other = await openEngine({ dataDir: engine.dataDir });
    try {
      const visibleAtAnswer = await Promise.all(
        ['p', 'q', 'r'].map(async (key) => {
          await inGroupCommit(engine.db, (tx) => put(tx, key));
          return (await other.db.selectFrom('platform_state').select('key').where('key', '=', key).executeTakeFirst())?.key;
        }),
      );
      expect(visibleAtAnswer).toEqual(['p', 'q', 'r']);
    } finally {
      await other.close();
    }
  });

  it('more units than one transaction takes are committed over several, none lost', async () => {
    const engine = await testEngine();
    const keys = Array.from({ length: 150 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await Promise.all(keys.map((key) => inGroupCommit(engine.db, (tx) => put(tx, key))));
    const stored = await engine.db.selectFrom('platform_state').select('key').where('key', 'like', 'k%').orderBy('key').execute();
    expect(stored.map((r) => r.key)).toEqual(keys);
  });

  it('concurrent e-CF share commits: one that fails after taking its number gives it back, the others keep theirs', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    await setSetting(engine, 'duplicates.mode', 'rechazar', tenant.id);
    // Fails the e-CF numbered FAIL when its signed bytes are stored: after allocation and the ecf row.
    const failing = `(select internal_number from ecf where store_key = new.ecf_key) = 'FAIL'`;
    const fail = STORE === 'sqlite' ? `select raise(abort, 'simulated failure') where ${failing}` : `if ${failing} then raise exception 'simulated failure'; end if`;
    await createRowTrigger(engine.db as never, { name: 'fail_store', table: 'ecf_documents', on: 'insert', body: [fail] });
    const sale = (i: number) => invoice31({ internalNumber: `N-${i}`, lines: [{ name: `Artículo ${i}`, quantity: 1, unitPrice: '10.00' }] });
    const outcomes = await Promise.allSettled([
      issueEcf(engine, tenant.id, { idempotencyKey: 'one', payload: sale(1) }),
      issueEcf(engine, tenant.id, { idempotencyKey: 'two', payload: { ...sale(2), internalNumber: 'FAIL' } }),
      issueEcf(engine, tenant.id, { idempotencyKey: 'three', payload: sale(3) }),
      issueEcf(engine, tenant.id, { idempotencyKey: 'four', payload: { ...sale(3), internalNumber: 'N-4' } }),
      issueEcf(engine, tenant.id, { idempotencyKey: 'five', payload: sale(5) }),
    ]);
    const summary = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.ecf.encf : ((o.reason as { code?: string }).code ?? (o.reason as Error).message)));
    // Units join the transaction in the order their reads finish (any order on PostgreSQL's pool): numbers follow that order.
    expect(summary[1]).toBe(STORE === 'sqlite' ? 'SQLITE_CONSTRAINT_TRIGGER' : 'P0001');
    expect([summary[2], summary[3]].filter((s) => s === 'Ecf.DuplicateSuspected')).toHaveLength(1);
    expect(summary.filter((s) => s!.startsWith('E31')).sort()).toEqual(['E310000000001', 'E310000000002', 'E310000000003']);
    const issuedKeys = ['one', 'two', 'three', 'four', 'five'].filter((_, i) => summary[i]!.startsWith('E31'));
    const range = (await listRanges(engine, tenant.id)).find((r) => r.type === 31 && r.environment === 'test')!;
    expect(range.next).toBe(4);
    const stored = await engine.db.selectFrom('ecf').select('idempotency_key').orderBy('encf').execute();
    expect(stored.map((r) => r.idempotency_key).sort()).toEqual(issuedKeys.sort());
    const queued = await engine.db.selectFrom('work').innerJoin('ecf', 'ecf.id', 'work.ref').select('ecf.idempotency_key').execute();
    expect(queued.map((r) => r.idempotency_key).sort()).toEqual(issuedKeys.sort());
    expect(await engine.db.selectFrom('ecf_documents').select('ecf_key').execute()).toHaveLength(3);
  });
});
