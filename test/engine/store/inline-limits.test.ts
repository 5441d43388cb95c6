import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { STORE, testEngine } from '../../helpers.js';

const put = (key: string) => ({ key, value: '"x"', updated_at: '2026-03-10T14:00:00.000Z' });

describe.runIf(STORE === 'sqlite')('SQLite statements that would be planned again on every run', () => {
  it('an integer LIMIT is written into the query text, and each page size still gets its own rows', async () => {
    const engine = await testEngine();
    await engine.db.insertInto('platform_state').values(['a', 'b', 'c'].map(put)).execute();
    const firstKeys = (n: number) => engine.db.selectFrom('platform_state').select('key').where('key', 'in', ['a', 'b', 'c']).orderBy('key').limit(n);

    expect(firstKeys(2).compile().sql).toMatch(/ limit 2$/);
    expect(firstKeys(2).compile().parameters).toEqual(['a', 'b', 'c']);
    for (const n of [1, 3, 2]) expect((await firstKeys(n).execute()).map((r) => r.key)).toEqual(['a', 'b', 'c'].slice(0, n));
    // Anything else is left as a parameter: only an integer may be written into the text.
    expect(engine.db.selectFrom('platform_state').select('key').limit(sql<number>`1 + 1`).compile().sql).toMatch(/ limit 1 \+ 1$/);
    await engine.close();
  });

  it('the writer keeps statement journals in memory', async () => {
    const engine = await testEngine();
    const [{ temp_store }] = (await sql<{ temp_store: number }>`pragma temp_store`.execute(engine.db)).rows as [{ temp_store: number }];
    expect(temp_store).toBe(2);
    await engine.close();
  });
});
