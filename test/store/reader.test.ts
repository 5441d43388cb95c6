import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/engine/store/database.js';
import { STORE, testEngine } from '../helpers.js';

const put = (key: string) => ({ key, value: '"x"', updated_at: '2026-03-10T14:00:00.000Z' });

/** Resolves to 'waited' if `promise` has not settled within a few event-loop turns of timers. */
const settlesSoon = <T>(promise: Promise<T>) =>
  Promise.race([promise, new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 200))]);

describe.runIf(STORE === 'sqlite')('the SQLite reader connection', () => {
  it('a read outside any transaction answers at once with the last commit, while a transaction is running', async () => {
    const engine = await testEngine();
    await engine.db.insertInto('platform_state').values(put('committed')).execute();
    let finish!: () => void;
    const open = new Promise<void>((resolve) => (finish = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const running = inTransaction(engine.db, async (tx) => {
      await tx.insertInto('platform_state').values(put('pending')).execute();
      inside();
      await open;
    });
    await started;

    const keys = () => engine.db.selectFrom('platform_state').select('key').where('key', 'in', ['committed', 'pending']).orderBy('key').execute();
    const during = await settlesSoon(keys());
    expect(during).toEqual([{ key: 'committed' }]);

    // A write outside the transaction still waits for it, and then goes through.
    const write = engine.db.insertInto('platform_state').values(put('after')).execute();
    expect(await settlesSoon(write)).toBe('waited');
    finish();
    await running;
    await write;
    expect((await keys()).map((r) => r.key)).toEqual(['committed', 'pending']);
    expect(await engine.db.selectFrom('platform_state').select('key').where('key', '=', 'after').executeTakeFirst()).toEqual({ key: 'after' });
  });

  it('a held connection that has written reads through the writer: it sees its own uncommitted rows', async () => {
    const engine = await testEngine();
    const seen = await engine.db.connection().execute(async (db) => {
      await sql`begin`.execute(db);
      try {
        await db.insertInto('platform_state').values(put('mine')).execute();
        return await db.selectFrom('platform_state').select('key').where('key', '=', 'mine').execute();
      } finally {
        await sql`rollback`.execute(db);
      }
    });
    expect(seen).toEqual([{ key: 'mine' }]);
    expect(await engine.db.selectFrom('platform_state').select('key').where('key', '=', 'mine').execute()).toEqual([]);
  });

  it('returning statements and pragmas are not plain reads: they run on the writer', async () => {
    const engine = await testEngine();
    const inserted = await engine.db.insertInto('platform_state').values(put('returned')).returning('key').execute();
    expect(inserted).toEqual([{ key: 'returned' }]);
    const { rows } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(engine.db);
    expect(rows).toEqual([{ foreign_keys: 1 }]);
  });
});
