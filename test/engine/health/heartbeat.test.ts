import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { intervalMs, schedulerPulses, staleAfterMsFor } from '../../../src/engine/health/heartbeat.js';
import { runReadiness, schedulerCheck } from '../../../src/engine/health/readiness.js';
import { DEFAULT_JOBS, startScheduler } from '../../../src/jobs/scheduler.js';
import { tempDir, testEngine, waitUntil } from '../../helpers.js';

describe('the job scheduler heartbeat', () => {
  it('reads bree intervals, and with the default jobs goes stale after 31 minutes', () => {
    expect(intervalMs(1500)).toBe(1500);
    expect(intervalMs('15m')).toBe(900_000);
    expect(intervalMs('6h')).toBe(21_600_000);
    expect(intervalMs('every day at 6:00 am')).toBe(86_400_000);
    expect(staleAfterMsFor(DEFAULT_JOBS)).toBe(31 * 60_000);
  });

  it('beats each time bree makes or ends a worker, on the clock it was given, and stops counting once stopped', async () => {
    const engine = await testEngine();
    // A job, due every second, that runs until the test lets it end: while it runs bree starts no
    // other worker for it, so nothing beats between moving the clock and reading the check.
    const dir = tempDir();
    const release = join(dir, 'release');
    const job = join(dir, 'hold.mjs');
    const started = join(dir, 'started');
    writeFileSync(
      job,
      `import { existsSync, writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(started)}, '');\n` +
        `while (!existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20));\n`,
    );
    const scheduler = await startScheduler({ dataDir: engine.dataDir, jobs: [{ name: 'hold', path: job, interval: 1000 }], now: () => engine.clock.now() });
    try {
      expect((await schedulerCheck.run(engine))[0]).toMatchObject({ status: 'ok' });
      const staleAfter = schedulerPulses()[0]!.staleAfterMs;
      expect(staleAfter).toBe(2 * 1000 + 60_000);
      // Running: bree made its worker (and beat) before the job wrote this.
      await waitUntil(() => existsSync(started), 'the worker to start');
      // Past the stale limit on the clock: the check fails until the worker's end beats at the new time.
      engine.clock.advance(staleAfter + 60_000);
      const moved = engine.clock.now().getTime();
      expect((await runReadiness(engine)).checks.find((c) => c.name === 'scheduler')).toMatchObject({ status: 'fail' });
      writeFileSync(release, '');
      await waitUntil(() => schedulerPulses()[0]!.lastBeatAt.getTime() === moved, 'a beat as the worker ends');
      expect((await runReadiness(engine)).ready).toBe(true);
    } finally {
      writeFileSync(release, '');
      await scheduler.stop();
    }
    expect(schedulerPulses()).toEqual([]);
    expect(await schedulerCheck.run(engine)).toEqual([]);
  });
});
