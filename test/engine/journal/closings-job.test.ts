import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/engine/clock.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { DEFAULT_JOBS, startScheduler } from '../../../src/jobs/scheduler.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { invoice31, seedIssuer, testEngine, waitUntil } from '../../helpers.js';

const closings = DEFAULT_JOBS.filter((j) => j.name === 'closings').map((j) => ({ ...j, firstRunAfterMs: 0 }));

describe('the closings job that ecf serve schedules', () => {
  it('closes the ended days of a tenant whose journal began three days ago (the job runs on the real clock)', async () => {
    const engine = await testEngine(new ManualClock(new Date(Date.now() - 3 * 86_400_000)));
    const { tenant } = await seedIssuer(engine);
    await issueEcf(engine, tenant.id, { idempotencyKey: 'j', payload: invoice31({ internalNumber: 'J' }) });
    const key = await tenantKey(engine.db, tenant.id);
    let summary: { written: number; more: boolean } | undefined;
    const scheduler = await startScheduler({
      dataDir: engine.dataDir,
      jobs: closings,
      onMessage: (_job, m) => {
        if (typeof m === 'object' && m !== null && 'summary' in m) summary = (m as { summary: typeof summary }).summary;
      },
    });
    try {
      await waitUntil(() => summary !== undefined, 'the closings job');
    } finally {
      await scheduler.stop();
    }
    // Three days back, then today: the day of the first entry and the ones after it that ended (3, or 2 within a minute of midnight).
    expect(summary!.more).toBe(false);
    expect(summary!.written).toBeGreaterThanOrEqual(2);
    const written = await engine.db.selectFrom('journal').select('kind').where('tenant_key', '=', key).where('kind', 'in', [16, 17]).execute();
    expect(written.length).toBe(summary!.written);
  });
});
