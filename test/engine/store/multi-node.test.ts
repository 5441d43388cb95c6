import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { TEST_SERVER_URL, invoice31, seedIssuer, tempDir, testDataDir } from '../../helpers.js';
import { allowLoopback, startReceiver } from '../webhooks/harness.js';
import { startServe } from '../../serve-process.js';

/**
 * Three `ecf serve` processes (API and jobs) on one PostgreSQL database,
 * with no balancer: the clients spread their requests over them and, when
 * one stops answering, send the same request (same Idempotency-Key) to
 * another. One process is SIGKILLed in the middle, holding requests,
 * transactions and leased work. Its leases run out (two minutes) and the
 * others finish its work. The processes run on a clock the test moves
 * (test/fixtures/shifted-clock.mjs): once the two left hold no lease, the
 * wait for the dead one's leases has nothing else in it, and their clock
 * jumps past the last of them instead of waiting two minutes.
 */

const SHIFTED_CLOCK = fileURLToPath(new URL('../../fixtures/shifted-clock.mjs', import.meta.url));

const E_CF = 1000;
const CLIENTS = 24;
const KILL_AFTER = 400;

interface Node {
  readonly child: ChildProcess;
  readonly base: string;
  alive: boolean;
}

async function serve(dataDir: string, env: NodeJS.ProcessEnv): Promise<Node> {
  const { child, base } = await startServe(dataDir, { env, logLevel: 'error' });
  const node: Node = { child, base, alive: true };
  child.once('exit', () => (node.alive = false));
  return node;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * When the processes left (not `deadPid`) have nothing to do until the dead one's leases run out:
 * every pending work item and webhook delivery is either leased by the dead process or due later
 * than `soonMs` from now. Returns the instant the last of the dead one's leases runs out (0 when
 * it holds none), or null while there is work the others could do now.
 */
async function idleUntilDeadLeases(engine: Engine, deadPid: string, soonMs: number): Promise<number | null> {
  const now = Date.now();
  const work = await engine.db.selectFrom('work').select(['lease_owner as owner', 'lease_expires_at as expires', 'due_at as due']).execute();
  const deliveries = await engine.db
    .selectFrom('webhook_deliveries')
    .select(['lease_owner as owner', 'lease_expires_at as expires', 'next_attempt_at as due'])
    .where('status', '=', 'pending')
    .execute();
  let last = 0;
  for (const r of [...work, ...deliveries]) {
    const leased = r.owner !== null && r.expires !== null && Date.parse(r.expires) > now;
    if (leased && r.owner!.includes(deadPid)) last = Math.max(last, Date.parse(r.expires!));
    else if (leased || Date.parse(r.due) <= now + soonMs) return null;
  }
  return last;
}

describe.skipIf(!TEST_SERVER_URL)('several engine processes on one PostgreSQL database', () => {
  it(`three ecf serve processes issue ${E_CF} e-CF and submit them; one is killed in the middle: no duplicate or missing e-NCF, every e-CF final, every event delivered`, async () => {
    const dataDir = testDataDir();
    const sandbox = await startSandbox();
    const receiver = await startReceiver();
    const engine = await openEngine({ dataDir });
    const nodes: Node[] = [];
    try {
      // Every node reads the certificate from the encrypted files of the shared data directory, never a keychain.
      await setSetting(engine, 'secrets.store', 'file');
      const { tenant, keys } = await seedIssuer(engine, { rangeSize: 5000 });
      await allowLoopback(engine);
      await createWebhook(engine, tenant.id, { url: receiver.url, events: ['*'] });

      const shiftFile = join(tempDir('ecf-clock-shift-'), 'shift-ms');
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        NO_COLOR: '1',
        ECF_TAXAUTH_SANDBOX_URL: sandbox.url,
        ECF_TEST_CLOCK_SHIFT_FILE: shiftFile,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import "${SHIFTED_CLOCK}"`.trim(),
      };
      for (const k of ['ECF_DATA_DIR', 'ECF_DATABASE_URL']) delete env[k];
      for (let i = 0; i < 3; i++) nodes.push(await serve(dataDir, env));

      let sent = 0;
      let next = 0;
      const answered = new Map<string, { id: string; encf: string }>();
      async function issueOne(i: number): Promise<void> {
        const body = JSON.stringify(invoice31({ internalNumber: `MN-${i}`, lines: [{ name: `Artículo ${i}`, quantity: 1, unitPrice: '100.00' }] }));
        for (let attempt = 0; ; attempt++) {
          const live = nodes.filter((n) => n.alive);
          const node = live[(i + attempt) % live.length]!;
          try {
            const res = await fetch(`${node.base}/api/v1/ecf`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-api-key': keys.emisor, 'idempotency-key': `mn-${i}` },
              body,
            });
            if (res.status === 201 || res.status === 200) {
              const ecf = (await res.json()) as { id: string; encf: string };
              answered.set(`mn-${i}`, ecf);
              return;
            }
            if (res.status !== 503) throw new Error(`e-CF ${i}: ${res.status} ${await res.text()}`);
          } catch (e) {
            // The process died under this request: another one answers the same key.
            if (node.alive && !(e instanceof TypeError)) throw e;
          }
          if (attempt > 20) throw new Error(`e-CF ${i} found no process to answer`);
          await sleep(50);
        }
      }
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < E_CF) {
            const i = next++;
            if (++sent === KILL_AFTER) nodes[1]!.child.kill('SIGKILL');
            await issueOne(i);
          }
        }),
      );
      expect(nodes[1]!.alive).toBe(false);
      expect(answered.size).toBe(E_CF);

      // Numbers: exactly 1..E_CF, each once, each e-CF the one its key's answer named.
      const rows = await engine.db.selectFrom('ecf').select(['id', 'encf', 'idempotency_key', 'status']).where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenant.id)).execute();
      expect(rows).toHaveLength(E_CF);
      const numbers = rows.map((r) => Number(r.encf.slice(3))).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: E_CF }, (_, k) => k + 1));
      for (const r of rows) expect(answered.get(r.idempotency_key)?.id).toBe(r.id);

      // Every e-CF reaches a final state and every event reaches the receiver (the killed node's leases expire after two minutes).
      const deadPid = `:${nodes[1]!.child.pid}:`;
      const issuedAt = Date.now();
      let shifted = false;
      const deadline = Date.now() + 5 * 60_000;
      for (;;) {
        if (!shifted) {
          // The two left have nothing to do for a while: only the dead one's leases stand between now and the end.
          const until = await idleUntilDeadLeases(engine, deadPid, 5_000);
          if (until !== null) {
            shifted = true;
            const ahead = until - Date.now();
            if (ahead > 0) writeFileSync(shiftFile, String(ahead + 1_000));
            console.log(`multi-node: the two processes left idle ${Math.round((Date.now() - issuedAt) / 1000)} s after the last e-CF was issued; their clock moved ${Math.max(0, Math.round(ahead / 1000))} s ahead, past the killed one's leases`);
          }
        }
        const pending = await engine.db.selectFrom('ecf').select('id').where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenant.id)).where('status', 'not in', ['accepted', 'conditionally_accepted', 'rejected']).execute();
        const events = await listEvents(engine.db, { tenantId: tenant.id, limit: 100_000 });
        const delivered = new Set(receiver.received.map((r) => r.headers['webhook-id']));
        if (pending.length === 0 && events.every((e) => delivered.has(e.id))) break;
        if (Date.now() > deadline) throw new Error(`${pending.length} e-CF not final, ${events.filter((e) => !delivered.has(e.id)).length} of ${events.length} events not delivered`);
        await sleep(1000);
      }
      const statuses = await engine.db.selectFrom('ecf').select('status').where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenant.id)).groupBy('status').select((eb) => eb.fn.countAll().as('n')).execute();
      expect(statuses).toEqual([{ status: 'accepted', n: E_CF }]);
      const accepted = (await listEvents(engine.db, { tenantId: tenant.id, limit: 100_000 })).filter((e) => e.type === 'ecf.accepted');
      expect(new Set(accepted.map((e) => (e.data.object as { id: string }).id)).size).toBe(E_CF);
    } finally {
      for (const n of nodes) if (n.alive) n.child.kill('SIGTERM');
      await Promise.all(nodes.map((n) => (n.alive ? new Promise((resolve) => n.child.once('exit', resolve)) : undefined)));
      await engine.close();
      await sandbox.close();
    }
  }, 8 * 60_000);
});
