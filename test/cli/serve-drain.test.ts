// The trial flow "SIGTERM under concurrent clients": a real `ecf serve`, several keep-alive clients
// issuing e-CF and a prober reading /readyz as a balancer would, then SIGTERM. Every request a
// client sent must get an HTTP answer (no reset, no refused connection on a request under way),
// readiness must fail while the node still answers, and the node exits 0.
import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { invoice31, seedIssuer, testDataDir, waitUntil } from '../helpers.js';
import { startServeCapturing } from '../engine/log/serve-output.js';

const CLIENTS = 8;

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
}

/** One request on `agent`; resolves with the answer, or with the error the socket gave. */
function send(agent: Agent, base: string, path: string, init: { method: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; connection: string | undefined } | { error: string }>((resolve) => {
    const req = request(`${base}${path}`, { agent, method: init.method, headers: init.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(init.body);
  });
}

describe('stopping ecf serve under concurrent clients', () => {
  it('on SIGTERM fails readiness first, answers every request sent on open connections (with Connection: close), then exits 0', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { keys } = await seedIssuer(engine, { rangeSize: 5000 });
    await engine.close();

    const serve = await startServeCapturing(dataDir, ['--no-jobs', '--stop-drain', '5', '--log-level', 'info']);
    let signalled = false;
    // The balancer: once readiness fails, no new request is routed to this node.
    let outOfRotation = false;
    const answers: Answer[] = [];
    const failures: string[] = [];
    const readiness: { status: number; afterSignal: boolean }[] = [];
    const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const prober = (async () => {
      while (!outOfRotation) {
        const r = await send(probeAgent, serve.base, '/readyz', { method: 'GET' });
        if ('error' in r) {
          // A balancer takes a node out on a failed probe too; the failure is counted below.
          failures.push(`readiness probe: ${r.error}`);
          outOfRotation = true;
          break;
        }
        readiness.push({ status: r.status, afterSignal: signalled });
        if (r.status !== 200) outOfRotation = true;
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    let sent = 0;
    const client = async (n: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; !outOfRotation; i++) {
        sent++;
        const r = await send(agent, serve.base, '/api/v1/ecf', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': keys.emisor, 'idempotency-key': `drain-${n}-${i}` },
          body: JSON.stringify(invoice31({ internalNumber: `D-${n}-${i}` })),
        });
        if ('error' in r) failures.push(`client ${n} request ${i}: ${r.error}`);
        else answers.push(r);
      }
      agent.destroy();
    };
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));

    await waitUntil(() => answers.length >= 3 * CLIENTS, 'the clients to be issuing', 60_000);
    signalled = true;
    serve.child.kill('SIGTERM');
    await Promise.all([prober, ...clients]);
    probeAgent.destroy();
    const code = await serve.exited;

    expect(failures, serve.output()).toEqual([]);
    expect(answers).toHaveLength(sent);
    expect(answers.filter((a) => a.status !== 201)).toEqual([]);
    // Requests on connections open at the signal were served, and told that the connection ends.
    expect(answers.some((a) => a.connection === 'close')).toBe(true);
    // Readiness failed after the signal while the node still answered it, never before.
    expect(readiness.filter((r) => r.status !== 200)).toEqual([{ status: 503, afterSignal: true }]);
    expect(code, serve.output()).toBe(0);

    // Every 201 is an e-CF in the store, and nothing else is.
    const after = await openEngine({ dataDir });
    try {
      expect(await after.db.selectFrom('ecf').select('id').execute()).toHaveLength(answers.length);
    } finally {
      await after.close();
    }
  }, 180_000);
});
