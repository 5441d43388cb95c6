import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { claim, complete, enqueue, pendingWork, reschedule } from '../../../src/engine/work/queue.js';
import { runDueWork } from '../../../src/engine/work/run.js';
import { testEngine } from '../../helpers.js';

const run = promisify(execFile);

describe('work table', () => {
  it('gives each row to one claimer when two connections alternate', async () => {
    const a = await testEngine();
    const b = await openEngine({ dataDir: a.dataDir, clock: a.clock });
    try {
      const ids = new Set<string>();
      for (let i = 0; i < 40; i++) ids.add(await enqueue(a.db, a.clock.now(), { kind: 'k', payload: { i } }));
      const seen: string[] = [];
      for (let turn = 0; ; turn++) {
        const who = turn % 2 === 0 ? a : b;
        const got = await claim(who.db, a.clock.now(), { kinds: ['k'], owner: turn % 2 ? 'B' : 'A', leaseMs: 60_000, limit: 7 });
        if (got.length === 0) break;
        seen.push(...got.map((g) => g.id));
      }
      expect(seen).toHaveLength(40);
      expect(new Set(seen)).toEqual(ids);
    } finally {
      await b.close();
    }
  });

  it('never hands a row to two processes claiming at the same time', async () => {
    const engine = await testEngine();
    const total = 120;
    await inTransaction(engine.db, async (tx) => {
      for (let i = 0; i < total; i++) await enqueue(tx, new Date('2020-01-01T00:00:00Z'), { kind: 'race', payload: i });
    });
    const outputs = await Promise.all(
      [1, 2, 3, 4].map(() =>
        run(process.execPath, ['--import', 'tsx', 'test/fixtures/claim-worker.ts', engine.dataDir, 'race']),
      ),
    );
    const claimed = outputs.flatMap((o) => JSON.parse(o.stdout) as string[]);
    expect(claimed).toHaveLength(total);
    expect(new Set(claimed).size).toBe(total);
    expect(await pendingWork(engine.db, 'race')).toHaveLength(0);
  });

  it('claims only due rows, oldest first, and counts attempts', async () => {
    const engine = await testEngine();
    const now = engine.clock.now();
    const late = await enqueue(engine.db, now, { kind: 'k', dueAt: new Date(now.getTime() + 10_000) });
    const early = await enqueue(engine.db, now, { kind: 'k', dueAt: new Date(now.getTime() - 5_000) });
    const other = await enqueue(engine.db, now, { kind: 'other' });
    const first = await claim(engine.db, now, { kinds: ['k'], owner: 'A', leaseMs: 60_000, limit: 10 });
    expect(first.map((i) => i.id)).toEqual([early]);
    expect(first[0]!.attempts).toBe(1);
    engine.clock.advance(10_000);
    const second = await claim(engine.db, engine.clock.now(), { kinds: ['k'], owner: 'A', leaseMs: 60_000, limit: 10 });
    expect(second.map((i) => i.id)).toEqual([late]);
    expect((await pendingWork(engine.db, 'other')).map((i) => i.id)).toEqual([other]);
  });

  it('reclaims a row whose lease expired, and the first owner can no longer finish it', async () => {
    const engine = await testEngine();
    const id = await enqueue(engine.db, engine.clock.now(), { kind: 'k', payload: { x: 1 } });
    const [mine] = await claim(engine.db, engine.clock.now(), { kinds: ['k'], owner: 'A', leaseMs: 30_000, limit: 1 });
    expect(mine!.id).toBe(id);
    expect(await claim(engine.db, engine.clock.now(), { kinds: ['k'], owner: 'B', leaseMs: 30_000, limit: 1 })).toEqual([]);
    engine.clock.advance(29_999);
    expect(await claim(engine.db, engine.clock.now(), { kinds: ['k'], owner: 'B', leaseMs: 30_000, limit: 1 })).toEqual([]);
    engine.clock.advance(1);
    const [theirs] = await claim(engine.db, engine.clock.now(), { kinds: ['k'], owner: 'B', leaseMs: 30_000, limit: 1 });
    expect(theirs).toMatchObject({ id, attempts: 2, leaseOwner: 'B', payload: { x: 1 } });
    expect(await complete(engine.db, mine!, 'A')).toBe(false);
    expect(await reschedule(engine.db, engine.clock.now(), mine!, 'A', { dueAt: engine.clock.now() })).toBe(false);
    expect(await complete(engine.db, theirs!, 'B')).toBe(true);
    expect(await pendingWork(engine.db)).toEqual([]);
  });

  it('enqueues one pending item per kind and ref, and none when the transaction rolls back', async () => {
    const engine = await testEngine();
    const a = await enqueue(engine.db, engine.clock.now(), { kind: 'submit', ref: 'ecf-1' });
    const b = await enqueue(engine.db, engine.clock.now(), { kind: 'submit', ref: 'ecf-1' });
    expect(b).toBe(a);
    await expect(
      inTransaction(engine.db, async (tx) => {
        await enqueue(tx, engine.clock.now(), { kind: 'submit', ref: 'ecf-2' });
        throw new Error('the fact failed');
      }),
    ).rejects.toThrow('the fact failed');
    expect((await pendingWork(engine.db)).map((w) => w.ref)).toEqual(['ecf-1']);
  });

  it('runs a batch with a result per item: done, rescheduled with the error, a crash retried later', async () => {
    const engine = await testEngine();
    const now = engine.clock.now();
    const ok = await enqueue(engine.db, now, { kind: 'k', payload: 'ok' });
    const later = await enqueue(engine.db, now, { kind: 'k', payload: 'later' });
    const crash = await enqueue(engine.db, now, { kind: 'k', payload: 'crash' });
    const results = await runDueWork(engine, {
      owner: 'runner',
      handlers: {
        k: async (e, item) => {
          if (item.payload === 'crash') throw new Error('boom');
          if (item.payload === 'later') return { retryAt: new Date(e.clock.now().getTime() + 10_000), error: 'receiver said 503' };
          return { done: true };
        },
      },
    });
    expect(results).toEqual(
      expect.arrayContaining([
        { id: ok, kind: 'k', result: 'done' },
        { id: later, kind: 'k', result: 'rescheduled', error: 'receiver said 503' },
        { id: crash, kind: 'k', result: 'rescheduled', error: 'boom' },
      ]),
    );
    const left = await pendingWork(engine.db);
    expect(left.map((w) => [w.id, w.lastError, w.leaseOwner])).toEqual([
      [later, 'receiver said 503', null],
      [crash, 'boom', null],
    ]);
    expect(await runDueWork(engine, { owner: 'runner', handlers: { k: async () => ({ done: true }) } })).toEqual([]);
    engine.clock.advance(10_000);
    const again = await runDueWork(engine, { owner: 'runner', handlers: { k: async () => ({ done: true }) } });
    expect(again.map((r) => r.id)).toEqual([later]);
  });
});
