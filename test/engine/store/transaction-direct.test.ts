import { CompiledQuery, type KyselyPlugin } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { inTransaction } from '../../../src/engine/store/database.js';
import { insertRow, prepared } from '../../../src/engine/store/prepared.js';
import { STORE, testEngine } from '../../helpers.js';

const row = (key: string) => ({ key, value: '"x"', updated_at: '2026-03-10T14:00:00.000Z' });
const byKey = prepared((db, a: { key: string }) => db.selectFrom('platform_state').select(['key', 'value']).where('key', '=', a.key));

// A plugin that leaves queries and results as they are: its presence alone must send queries through kysely.
const passThrough: KyselyPlugin = { transformQuery: ({ node }) => node, transformResult: async ({ result }) => result };

describe.runIf(STORE === 'sqlite')('SQLite statements run where kysely would send them, without its executor', () => {
  it('a transaction’s statements run on its connection, see its own writes and roll back with it', async () => {
    const engine = await testEngine();
    const failure = new Error('after the writes');
    await expect(
      inTransaction(engine.db, async (tx) => {
        const viaKysely = vi.spyOn(tx, 'executeQuery');
        await insertRow(tx, 'platform_state', row('a'));
        expect(await byKey(tx, { key: 'a' })).toEqual([{ key: 'a', value: '"x"' }]);
        expect(viaKysely).not.toHaveBeenCalled();
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await byKey(engine.db, { key: 'a' })).toEqual([]);

    const stale = await inTransaction(engine.db, async (tx) => {
      await insertRow(tx, 'platform_state', row('b'));
      return tx;
    });
    expect(await byKey(engine.db, { key: 'b' })).toEqual([{ key: 'b', value: '"x"' }]);
    // Once its work is over, a transaction is kysely's again, which refuses it.
    await expect(insertRow(stale, 'platform_state', row('late'))).rejects.toThrow('Transaction is already committed');
    expect(await byKey(engine.db, { key: 'late' })).toEqual([]);
    await engine.close();
  });

  it('plain reads of the store’s own instance run on the reader directly; its writes, reads bound to a connection and instances with a plugin go through kysely', async () => {
    const engine = await testEngine();
    const root = vi.spyOn(engine.db, 'executeQuery');
    await insertRow(engine.db, 'platform_state', row('c'));
    expect(root).toHaveBeenCalledTimes(1);
    expect(await byKey(engine.db, { key: 'c' })).toEqual([{ key: 'c', value: '"x"' }]);
    expect(root).toHaveBeenCalledTimes(1);

    // A connection that wrote reads its own writes from the writer: its reads stay with kysely.
    await engine.db.connection().execute(async (db) => {
      const bound = vi.spyOn(db, 'executeQuery');
      expect(await byKey(db, { key: 'c' })).toEqual([{ key: 'c', value: '"x"' }]);
      expect(bound).toHaveBeenCalledTimes(1);
    });

    const withPlugin = engine.db.withPlugin(passThrough);
    await inTransaction(withPlugin, async (tx) => {
      const viaKysely = vi.spyOn(tx, 'executeQuery');
      expect(await byKey(tx, { key: 'c' })).toEqual([{ key: 'c', value: '"x"' }]);
      await tx.executeQuery(CompiledQuery.raw('select 1'));
      expect(viaKysely).toHaveBeenCalledTimes(2);
    });
    await engine.close();
  });
});
