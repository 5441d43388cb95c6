import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../src/engine/data-dir.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { requireTenant } from '../../../src/engine/tenants/lookup.js';
import { STORE, seedTenant, testEngine } from '../../helpers.js';

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

describe.runIf(STORE === 'sqlite')('reads kept until the store changes', () => {
  const restore: (() => void)[] = [];
  afterEach(() => restore.splice(0).forEach((undo) => undo()));

  /** Counts the runs of SQLite statements whose text mentions `table`. */
  function runsOf(table: string) {
    const memory = new SQLite(':memory:');
    const proto = Object.getPrototypeOf(memory.prepare('select 1')) as { all: (...args: unknown[]) => unknown };
    memory.close();
    const all = proto.all;
    let runs = 0;
    proto.all = function (this: { source: string }, ...args: unknown[]) {
      if (this.source.includes(`"${table}"`)) runs++;
      return all.apply(this, args);
    };
    restore.push(() => (proto.all = all));
    return () => runs;
  }

  it('answer a tenant from memory until any connection commits, each caller with its own copy', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const runs = runsOf('tenants');

    const first = await requireTenant(engine.db, tenant.id);
    const second = await requireTenant(engine.db, tenant.id);
    expect(runs()).toBe(1);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);

    // A commit of this engine's writer, on another table: read again.
    await engine.db.insertInto('platform_state').values(put('any')).execute();
    await requireTenant(engine.db, tenant.id);
    expect(runs()).toBe(2);

    // Another connection (another process, say) renames the tenant: the next read sees it.
    const other = new SQLite(join(engine.dataDir, DATABASE_FILE));
    other.prepare('update tenants set legal_name = ? where id = ?').run('Nombre Nuevo SRL', tenant.id);
    other.close();
    expect((await requireTenant(engine.db, tenant.id)).legal_name).toBe('Nombre Nuevo SRL');
    expect(runs()).toBe(3);
  });

  it('are never kept inside a transaction, which reads its own writes', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await requireTenant(engine.db, tenant.id);
    const renamed = await inTransaction(engine.db, async (tx) => {
      await tx.updateTable('tenants').set({ legal_name: 'Dentro SRL' }).where('id', '=', tenant.id).execute();
      return (await requireTenant(tx, tenant.id)).legal_name;
    });
    expect(renamed).toBe('Dentro SRL');
    expect((await requireTenant(engine.db, tenant.id)).legal_name).toBe('Dentro SRL');
  });
});
