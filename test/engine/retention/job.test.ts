import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import { emit } from '../../../src/engine/events/outbox.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { DEFAULT_JOBS, startScheduler } from '../../../src/jobs/scheduler.js';
import { testDataDir, waitUntil } from '../../helpers.js';
import { DAY } from '../webhooks/harness.js';

const storeClean = DEFAULT_JOBS.filter((j) => j.name === 'store-clean').map((j) => ({ ...j, firstRunAfterMs: 0 }));

/** A data directory whose store holds `n` events written 40 days ago (the job runs on the real clock). */
async function storeWithOldEvents(n: number) {
  const dataDir = testDataDir();
  const engine = await openEngine({ dataDir, clock: new ManualClock(new Date(Date.now() - 40 * DAY)) });
  await inTransaction(engine.db, async (tx) => {
    for (let i = 0; i < n; i++) await emit(tx, engine.clock.now(), null, 'ecf.accepted', { i });
  });
  const events = async () => (await engine.db.selectFrom('events').select('id').execute()).length;
  return { dataDir, engine, events };
}

async function runJob(dataDir: string, stopAtOnce: boolean) {
  let summary: unknown;
  const scheduler = await startScheduler({
    dataDir,
    jobs: storeClean,
    onMessage: (_job, m) => {
      if (typeof m === 'object' && m !== null && 'summary' in m) summary = (m as { summary: unknown }).summary;
    },
  });
  if (!stopAtOnce) await waitUntil(() => summary !== undefined, 'the store-clean job');
  await scheduler.stop();
  return summary;
}

describe('the store-clean job in its worker thread', () => {
  it('removes what is old, and when the scheduler stops while it runs, stops before its next batch', async () => {
    const { dataDir, engine, events } = await storeWithOldEvents(500);
    try {
      // Asked to stop as soon as its worker exists, the job reads the request at its event loop's
      // first turn after its engine opened: on PostgreSQL before the first batch (every query is
      // I/O), on SQLite at the pause after it (its statements run without a turn). Whole batches only.
      const stopped = (await runJob(dataDir, true)) as { ran: boolean; stopped: boolean; removed: number };
      expect(stopped).toMatchObject({ ran: true, stopped: true });
      expect(stopped.removed).toBe(engine.dialect === 'sqlite' ? 200 : 0);
      expect(await events()).toBe(500 - stopped.removed);
      expect(await runJob(dataDir, false)).toMatchObject({ ran: true, stopped: false, removed: 500 - stopped.removed });
      expect(await events()).toBe(0);
    } finally {
      await engine.close();
    }
  });
});
