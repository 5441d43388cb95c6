// Claims name their holder (work/holder.ts), so a process that starts takes over at once what a
// killed process of the same machine held, and leaves alone what a running process, another
// machine or an older version holds. Real processes stand in for the holders.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { holderState, ownerName, processStart, thisHolder, type Holder } from '../../../src/engine/work/holder.js';
import { claim, enqueue, leaseOwnerName, pendingWork, takeOverDeadClaims } from '../../../src/engine/work/queue.js';
import { resumeAfterHolderDied } from '../../../src/engine/submission/submit.js';
import { TRANSPORT_LADDER_MS } from '../../../src/engine/submission/rules.js';
import { claimDeliveries, takeOverDeadDeliveries } from '../../../src/engine/webhooks/delivery.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { allowLoopback, emitEvent } from '../webhooks/harness.js';
import { seedTenant, testEngine } from '../../helpers.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A process of this machine, running, as the holder of claims. */
async function runningHolder(): Promise<{ child: ChildProcess; holder: Holder }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  await once(child, 'spawn');
  const start = processStart(child.pid!);
  expect(start).not.toBeNull();
  return { child, holder: { node: thisHolder()!.node, pid: child.pid!, start: start! } };
}

/** The holder of a process that was killed with SIGKILL. */
async function deadHolder(): Promise<Holder> {
  const { child, holder } = await runningHolder();
  child.kill('SIGKILL');
  await once(child, 'exit');
  return holder;
}

// A process is named (boot, pid namespace, pid, start time) only from /proc: skipped where there is none (not Linux).
describe.skipIf(thisHolder() === null)('claims of processes that ended', () => {
  it('tells a killed holder, a pid now given to another process and a running one apart, and judges no other machine or older owner', async () => {
    const me = thisHolder()!;
    expect(holderState(leaseOwnerName('work'))).toBe('alive');
    const { holder: live } = await runningHolder();
    expect(holderState(ownerName('work', 'a1', live))).toBe('alive');
    expect(holderState(ownerName('work', 'a2', await deadHolder()))).toBe('dead');
    // The pid runs, but a process started at another time has it: the holder is gone.
    expect(holderState(ownerName('work', 'a3', { ...me, start: String(Number(me.start) - 1) }))).toBe('dead');
    // Another machine's (or container's) pids cannot be judged from here, nor owners without a holder.
    expect(holderState(ownerName('work', 'a4', { ...me, node: '00000000-0000-0000-0000-000000000000.1', pid: 999_999_999 }))).toBe('unknown');
    expect(holderState(`work@somehost:${me.pid + 1}:abcd1234`)).toBe('unknown');
  });

  it('frees at once the live leases of a killed holder, keeping their payloads, and leaves every other claim to its lease', async () => {
    const engine = await testEngine();
    const now = engine.clock.now();
    const dead = ownerName('work', 'd1', await deadHolder());
    const { holder } = await runningHolder();
    const owners = { dead, running: ownerName('work', 'r1', holder), self: leaseOwnerName('work'), older: 'work@elsewhere:4242:0badc0de' };
    for (const [who, owner] of Object.entries(owners)) {
      await enqueue(engine.db, now, { kind: 'ecf.submit', ref: `${who}-send`, payload: { phase: 'unclear', sentAt: new Date(now.getTime() - 2_000).toISOString() } });
      await enqueue(engine.db, now, { kind: 'ecf.submit', ref: `${who}-poll`, payload: { phase: 'answered' } });
      expect(await claim(engine.db, now, { kinds: ['ecf.submit'], owner, leaseMs: 150_000, limit: 2 })).toHaveLength(2);
    }

    const timeoutMs = 15_000;
    const taken = await takeOverDeadClaims(engine.db, now, (item) => resumeAfterHolderDied(item, now, timeoutMs));
    expect(taken.map((i) => i.ref).sort()).toEqual(['dead-poll', 'dead-send']);

    const byRef = new Map((await pendingWork(engine.db)).map((w) => [w.ref, w]));
    // The poll runs again now; the send, whose answer the dead process never heard, is asked about
    // when that process would have asked: its call's timeout, then the ladder's first step.
    expect(byRef.get('dead-poll')).toMatchObject({ leaseOwner: null, leaseExpiresAt: null, dueAt: now.toISOString(), payload: { phase: 'answered' } });
    expect(byRef.get('dead-send')).toMatchObject({
      leaseOwner: null,
      payload: { phase: 'unclear' },
      dueAt: new Date(now.getTime() - 2_000 + timeoutMs + TRANSPORT_LADDER_MS[0]).toISOString(),
    });
    for (const who of ['running', 'self', 'older'] as const) {
      for (const phase of ['send', 'poll']) expect(byRef.get(`${who}-${phase}`)?.leaseOwner).toBe(owners[who]);
    }
    // Taken over once: a second start finds nothing more.
    expect(await takeOverDeadClaims(engine.db, now, () => null)).toEqual([]);
  });

  it('frees the webhook deliveries a killed holder had claimed, and only those', async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    await allowLoopback(engine);
    // Never called: the deliveries are only claimed here.
    const { endpoint } = await createWebhook(engine, tenant.id, { url: 'http://127.0.0.1:9/hook', events: ['*'] });
    for (let i = 0; i < 3; i++) await emitEvent(engine, tenant.id, 'ecf.accepted', { i });
    const now = engine.clock.now();
    const { holder } = await runningHolder();
    const owners = [ownerName('webhooks', 'd2', await deadHolder()), ownerName('webhooks', 'r2', holder), leaseOwnerName('webhooks')];
    for (const owner of owners) expect(await claimDeliveries(engine.db, now, { endpointId: endpoint.id, owner, leaseMs: 60_000, limit: 1 })).toHaveLength(1);

    expect(await takeOverDeadDeliveries(engine.db, now)).toBe(1);
    const held = await engine.db.selectFrom('webhook_deliveries').select('lease_owner').where('endpoint_id', '=', endpoint.id).execute();
    expect(held.map((d) => d.lease_owner).sort()).toEqual([null, owners[1], owners[2]].sort());
  });
});
