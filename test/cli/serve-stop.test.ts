import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/engine/clock.js';
import { openEngine } from '../../src/engine/engine.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { getEcf } from '../../src/engine/ecf/queries.js';
import { listAttempts } from '../../src/engine/submission/attempts.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { pendingWork } from '../../src/engine/work/queue.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { drive } from '../engine/submission/harness.js';
import { invoice31, seedIssuer, STORE, testDataDir, waitUntil } from '../helpers.js';
import { startServeCapturing } from '../engine/log/serve-output.js';

/** The send waits this long at the sandbox: long enough to be in flight when the signal comes. */
const RECEPTION_LATENCY_MS = 6_000;

/** A data directory with one e-CF queued for submission to `sandbox`, whose sends are slow. */
async function queuedEcf(sandbox: RunningSandbox) {
  const dataDir = testDataDir();
  const engine = await openEngine({ dataDir });
  const { tenant } = await seedIssuer(engine);
  await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
  await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
  // The client waits out the sandbox's latency: the send is in flight, not timed out, at the signal.
  await setSetting(engine, 'taxauth.timeout_ms', 60_000);
  const ecf = (await issueEcf(engine, tenant.id, { idempotencyKey: 'stop-1', payload: invoice31() })).ecf;
  await engine.close();
  sandbox.control.setLoad({ latency: { reception: { delayMs: RECEPTION_LATENCY_MS, jitterMs: 0 } } });
  return { dataDir, tenant, ecf };
}

describe('stopping ecf serve', () => {
  it('on SIGTERM with a send in flight, stops within --stop-timeout, hands the send back, and another engine takes the e-CF to accepted with one send', async () => {
    const sandbox = await startSandbox();
    try {
      const { dataDir, tenant, ecf } = await queuedEcf(sandbox);
      // A budget shorter than the sandbox's latency: the send cannot finish, so it is handed back.
      const serve = await startServeCapturing(dataDir, ['--stop-timeout', '3', '--log-level', 'info']);
      await waitUntil(() => sandbox.control.inFlight() > 0, 'the send to be in flight', 60_000);
      serve.child.kill('SIGTERM');
      expect(await serve.exited, serve.output()).toBe(0);
      expect(serve.logLines().some((l) => /handed back 1 work item/.test(String(l.msg)))).toBe(true);

      // The authority still finishes what it was sent; meanwhile the item waits, unleased, marked unclear.
      const successor = await openEngine({ dataDir, clock: new ManualClock(new Date()) });
      try {
        const [item] = await pendingWork(successor.db);
        expect(item).toMatchObject({ ref: ecf.id, leaseOwner: null, leaseExpiresAt: null, payload: { phase: 'unclear' } });
        await waitUntil(() => sandbox.control.inFlight() === 0, 'the sandbox to finish the abandoned send', 60_000);
        sandbox.control.setLoad({ latency: { reception: { delayMs: 0, jitterMs: 0 } } });

        // The successor asks before sending again (the unclear mark), then follows the verdict.
        await drive(successor, successor.clock as ManualClock);
        expect((await getEcf(successor, tenant.id, ecf.id)).status).toBe('accepted');
        expect(sandbox.control.submissions({ encf: ecf.encf })).toHaveLength(1);
        expect((await listAttempts(successor, tenant.id, ecf.id)).map((a) => a.outcome)).toEqual(['accepted']);
      } finally {
        await successor.close();
      }
    } finally {
      await sandbox.close();
    }
  }, 180_000);

  it('after a kill -9 mid-send, the next ecf serve takes the claim over at once and asks before sending again: accepted with one send', async () => {
    const sandbox = await startSandbox();
    try {
      const { dataDir, tenant, ecf } = await queuedEcf(sandbox);
      // Short calls, so the dead send is asked about soon (its timeout, then 10 s); its lease is 2 minutes.
      const setup = await openEngine({ dataDir });
      await setSetting(setup, 'taxauth.timeout_ms', 5_000);
      await setup.close();
      sandbox.control.setLoad({ latency: { reception: { delayMs: 2_000, jitterMs: 0 } } });

      const first = await startServeCapturing(dataDir, ['--log-level', 'info']);
      await waitUntil(() => sandbox.control.inFlight() > 0, 'the send to be in flight', 60_000);
      first.child.kill('SIGKILL');
      await first.exited;
      const look = await openEngine({ dataDir });
      let dead: string;
      try {
        const [held] = await pendingWork(look.db);
        expect(held).toMatchObject({ ref: ecf.id, payload: { phase: 'unclear' } });
        expect(Date.parse(held!.leaseExpiresAt!)).toBeGreaterThan(Date.now() + 60_000);
        dead = held!.leaseOwner!;
      } finally {
        await look.close();
      }
      // The authority still finishes what the dead process sent.
      await waitUntil(() => sandbox.control.inFlight() === 0, 'the sandbox to finish the abandoned send', 60_000);

      const second = await startServeCapturing(dataDir, ['--log-level', 'info', '--stop-drain', '0']);
      try {
        await waitUntil(() => second.logLines().some((l) => /^took over 1 work item/.test(String(l.msg))), 'the claim to be taken over', 60_000);
        const after = await openEngine({ dataDir });
        try {
          const [item] = await pendingWork(after.db);
          // Not the dead process's any more; still unclear, so the authority is asked first.
          if (item) expect(item).toMatchObject({ payload: { phase: 'unclear' } });
          expect(item?.leaseOwner).not.toBe(dead);
          await waitUntil(async () => (await getEcf(after, tenant.id, ecf.id)).status === 'accepted', 'the e-CF to be accepted', 90_000);
          expect(sandbox.control.submissions({ encf: ecf.encf })).toHaveLength(1);
          expect((await listAttempts(after, tenant.id, ecf.id)).map((a) => a.outcome)).toEqual(['accepted']);
        } finally {
          await after.close();
        }
      } finally {
        second.child.kill('SIGTERM');
        expect(await second.exited, second.output()).toBe(0);
      }
    } finally {
      await sandbox.close();
    }
  }, 240_000);

  // Nothing of the store is involved: run once, on SQLite.
  it.skipIf(STORE === 'postgres')('a second SIGINT while the first stop waits exits at once, non-zero', async () => {
    const sandbox = await startSandbox();
    try {
      const { dataDir } = await queuedEcf(sandbox);
      // A long budget: the first stop would wait for the send in flight.
      const serve = await startServeCapturing(dataDir, ['--stop-timeout', '120', '--log-level', 'info']);
      await waitUntil(() => sandbox.control.inFlight() > 0, 'the send to be in flight', 60_000);
      serve.child.kill('SIGINT');
      await waitUntil(() => serve.logLines().some((l) => String(l.msg).startsWith('stopping on SIGINT')), 'the stop to begin', 60_000);
      serve.child.kill('SIGINT');
      const code = await serve.exited;
      expect(code).not.toBe(0);
      expect(code).not.toBeNull(); // it exited by itself, not by the signal's default action
    } finally {
      await sandbox.close();
    }
  }, 180_000);
});
