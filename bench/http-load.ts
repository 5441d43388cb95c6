// The load generator of the HTTP benchmarks: POST /api/v1/ecf with N requests kept in
// flight over keep-alive connections, each a different sale with its own Idempotency-Key.
import { Agent, request } from 'node:http';
import { payload } from './documents.js';

export interface Target {
  readonly port: number;
  /** An emisor API key of the tenant the requests issue for. */
  readonly key: string;
}

interface Outcome {
  readonly status: number;
  readonly ms: number;
  readonly text?: string;
}

export interface LoadResult {
  /** Latencies of the 201 answers, sorted, in ms. */
  readonly latencies: number[];
  readonly elapsed: number;
  readonly failures: Map<string, number>;
  readonly firstFailure: string | undefined;
}

// Each request is a different sale: the first line's name carries the request number, so
// duplicate detection (on by default, duplicates.mode observar) finds no twin.
export const distinctBody = (i: number) =>
  Buffer.from(JSON.stringify({ ...payload, lines: [{ ...payload.lines[0]!, name: `${payload.lines[0]!.name} #${i}` }, ...payload.lines.slice(1)] }));
export const identicalBody = Buffer.from(JSON.stringify(payload));

export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

function post(agent: Agent, target: Target, key: string, body: Buffer): Promise<Outcome> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port: target.port,
        method: 'POST',
        path: '/api/v1/ecf',
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': target.key, 'idempotency-key': key },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          const status = res.statusCode ?? 0;
          resolve(status === 201 ? { status, ms } : { status, ms, text: Buffer.concat(chunks).toString('utf8').slice(0, 300) });
        });
      },
    );
    req.on('error', (e) => resolve({ status: 0, ms: Number(process.hrtime.bigint() - start) / 1e6, text: String(e) }));
    req.end(body);
  });
}

let keyCounter = 0;
const runId = Date.now().toString(36);

/** Keeps `clients` requests in flight for `ms`, client c sending to targets[c % targets.length]. */
export async function load(targets: readonly Target[], clients: number, ms: number, identical = false): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  let firstFailure: string | undefined;
  const start = performance.now();
  const stopAt = start + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const target = targets[c % targets.length]!;
      while (performance.now() < stopAt) {
        const i = ++keyCounter;
        const o = await post(agent, target, `bench-${runId}-${i}`, identical ? identicalBody : distinctBody(i));
        if (o.status === 201) latencies.push(o.ms);
        else {
          const k = String(o.status);
          failures.set(k, (failures.get(k) ?? 0) + 1);
          firstFailure ??= `${o.status} ${o.text}`;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { latencies, elapsed, failures, firstFailure };
}
