import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Engine } from '../../../src/engine/engine-types.js';
import type { EventType } from '../../../src/engine/events/catalogue.js';
import { emit } from '../../../src/engine/events/outbox.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { inTransaction } from '../../../src/engine/store/database.js';

/** One request as a receiver got it. */
export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the receiver answers: a status, or `hang` (never answers until closed). */
export type Answer = number | { status: number; headers?: Record<string, string> } | 'hang';
export type Handler = (request: Received, index: number) => Answer | Promise<Answer>;

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  handler: Handler;
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

const open: Receiver[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

/** A real HTTP receiver on 127.0.0.1 that records every request and answers what `handler` says (200 by default). */
export async function startReceiver(handler: Handler = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = received.push(request) - 1;
      for (const w of waiters.filter((w) => received.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const answer = await receiver.handler(request, index);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(`answer ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks/ecf`,
    port,
    received,
    handler,
    waitFor: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.push(receiver);
  return receiver;
}

/** The operator settings that let tests reach receivers on loopback over plain HTTP. */
export async function allowLoopback(engine: Engine): Promise<void> {
  await setSetting(engine, 'webhooks.development_mode', true);
  await setSetting(engine, 'webhooks.allowed_private_cidrs', ['127.0.0.0/8']);
}

/** Records an event the way every emitter does: in a transaction of its own here. */
export async function emitEvent(engine: Engine, tenantId: string, type: EventType = 'ecf.accepted', object: unknown = { n: 1 }) {
  return (await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), tenantId, type, object)))!;
}

/**
 * Verifies a received request with the standardwebhooks package (the
 * independent verifier), as a receiver whose clock reads `at` would: the
 * package checks the timestamp against Date.now().
 */
export function verifyWith(secret: string, request: Received, at: Date): unknown {
  const spy = vi.spyOn(Date, 'now').mockReturnValue(at.getTime());
  try {
    return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
  } finally {
    spy.mockRestore();
  }
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
