import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../../src/engine/store/database.js';
import { insertRow, prepared } from '../../../src/engine/store/prepared.js';
import { testEngine } from '../../helpers.js';

const at = '2026-03-10T14:00:00.000Z';

describe('prepared queries', () => {
  it('are built once and run with fresh values, constants kept, in and out of transactions', async () => {
    const engine = await testEngine();
    let builds = 0;
    const byPrefix = prepared((db, p: { from: string; to: string }) => {
      builds++;
      return db.selectFrom('platform_state').select(['key', 'value']).where('key', '>=', p.from).where('key', '<', p.to).where('value', '!=', '"hidden"').orderBy('key').limit(2);
    });
    for (const [key, value] of [['a1', '"1"'], ['a2', '"hidden"'], ['a3', '"3"'], ['a4', '"4"'], ['b1', '"5"']]) {
      await insertRow(engine.db, 'platform_state', { key: key!, value: value!, updated_at: at });
    }
    expect(await byPrefix(engine.db, { from: 'a', to: 'b' })).toEqual([{ key: 'a1', value: '"1"' }, { key: 'a3', value: '"3"' }]);
    expect(await inTransaction(engine.db, (tx) => byPrefix(tx, { from: 'a3', to: 'c' }))).toEqual([{ key: 'a3', value: '"3"' }, { key: 'a4', value: '"4"' }]);
    expect(builds).toBe(1);
    await expect(byPrefix(engine.db, { from: 'a' } as never)).rejects.toThrow(/no value for to/);
  });

  it('insertRow leaves out undefined columns and keeps one statement per set of columns', async () => {
    const engine = await testEngine();
    await insertRow(engine.db, 'work', { id: 'w1', kind: 'k', tenant_id: null, ref: 'r1', payload: 'null', due_at: at, attempts: 0, created_at: at, updated_at: at });
    await insertRow(engine.db, 'work', { id: 'w2', kind: 'k', ref: 'r2', payload: 'null', due_at: at, attempts: 3, created_at: at, updated_at: at, tenant_id: undefined } as never);
    const rows = await engine.db.selectFrom('work').select(['id', 'tenant_id', 'attempts']).orderBy('id').execute();
    expect(rows).toEqual([{ id: 'w1', tenant_id: null, attempts: 0 }, { id: 'w2', tenant_id: null, attempts: 3 }]);
  });
});
