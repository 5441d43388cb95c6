import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { enqueue, pendingWork } from '../../src/engine/work/queue.js';
import { DEFAULT_JOBS, startScheduler } from '../../src/jobs/scheduler.js';
import { testEngine } from '../helpers.js';

const fixture = fileURLToPath(new URL('../fixtures/jobs/drain-test-work.ts', import.meta.url));

function nextMessage(filter: (m: unknown) => boolean) {
  let resolve!: (m: unknown) => void;
  const promise = new Promise<unknown>((r) => (resolve = r));
  return { promise, handle: (_job: string, m: unknown) => filter(m) && resolve(m) };
}

describe('bree scheduler', () => {
  it('runs a job file in a worker that claims due work through the engine and records outcomes', async () => {
    const engine = await testEngine();
    const past = new Date('2020-01-01T00:00:00Z');
    for (let i = 0; i < 5; i++) await enqueue(engine.db, past, { kind: 'test', payload: { i } });
    const failing = await enqueue(engine.db, past, { kind: 'test', payload: { fail: true } });

    const summary = nextMessage((m) => typeof m === 'object' && m !== null && 'summary' in m);
    const errors: unknown[] = [];
    const scheduler = await startScheduler({
      dataDir: engine.dataDir,
      jobs: [{ name: 'drain', path: fixture, interval: '1h' }],
      onMessage: summary.handle,
      onError: (_j, e) => errors.push(e),
    });
    try {
      const message = (await summary.promise) as { summary: { threadId: number; results: { result: string }[] } };
      expect(message.summary.threadId).toBeGreaterThan(0); // ran in a worker thread
      expect(message.summary.results.map((r) => r.result).sort()).toEqual(['done', 'done', 'done', 'done', 'done', 'rescheduled']);
    } finally {
      await scheduler.stop();
    }
    expect(errors).toEqual([]);
    const left = await pendingWork(engine.db, 'test');
    expect(left.map((w) => [w.id, w.lastError])).toEqual([[failing, 'told to fail']]);
  });

  it('spreads the appliance’s periodic jobs apart and stops at once, even right after starting', async () => {
    const starts = DEFAULT_JOBS.map((j) => j.firstRunAfterMs ?? 0);
    expect(new Set(starts).size).toBe(DEFAULT_JOBS.length);
    expect(DEFAULT_JOBS.map((j) => j.name)).not.toContain('work');
    const engine = await testEngine();
    const errors: unknown[] = [];
    const scheduler = await startScheduler({ dataDir: engine.dataDir, jobs: DEFAULT_JOBS, onError: (_j, e) => errors.push(e) });
    await scheduler.stop();
    expect(errors).toEqual([]);
  });
});
