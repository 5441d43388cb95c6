import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext } from './context.js';
import { OVERLOAD_BODY, serviceOf } from './load.js';
import type { SandboxOutcome } from './outcomes.js';
import { isUnreachable, setUnreachable } from './state.js';
import { GATEWAY_TIMEOUT, SERVICE_UNAVAILABLE } from './wire.js';

/**
 * How the sandbox misbehaves below the authority's answers: unreachable,
 * slow and overloaded (load.ts), and the scripted transport faults of a
 * reception (5xx, connection closed, lost response, timeout). The engine's
 * retries are tested against these.
 */

const DEFAULT_HANG_MS = 60_000;

/** Hooks every request but the control's through the unreachable switch and the load gate. */
export function addTransportHooks(app: FastifyInstance, sandbox: SandboxContext): void {
  // Unreachable: every connection is closed on its first request, without an answer.
  // Then the load: over the cap, an answer at once; otherwise the request is in flight, and waits its latency.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/_sandbox/')) return;
    if (isUnreachable(sandbox.state)) return drop(request, reply);
    const service = serviceOf(request.url);
    if (!service) return;
    const admitted = sandbox.gate.admit(service);
    if ('refused' in admitted) {
      return reply.code(admitted.refused).header('retry-after', '1').type('text/html; charset=utf-8').send(OVERLOAD_BODY[admitted.refused]);
    }
    // 'close' comes once the answer is written or the connection is gone, whichever way the exchange ends.
    reply.raw.once('close', admitted.leave);
    if (admitted.delayMs > 0) await sandbox.wait(admitted.delayMs, service);
  });
  app.addHook('onClose', async () => {
    for (const cancel of [...sandbox.hangs]) cancel();
  });
}

/** Ends the exchange without an answer: the client sees the connection close. */
export function drop(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  request.raw.socket.destroy();
  return reply;
}

/** Holds the request `ms`; false when the client went away (or the sandbox closed) first. */
function hang(sandbox: SandboxContext, request: FastifyRequest, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = request.raw.socket;
    const done = (stillThere: boolean) => {
      clearTimeout(timer);
      socket.off('close', onClose);
      sandbox.hangs.delete(cancel);
      resolve(stillThere);
    };
    const onClose = () => done(false);
    const cancel = () => done(false);
    const timer = setTimeout(() => done(!socket.destroyed), ms);
    sandbox.hangs.add(cancel);
    socket.once('close', onClose);
  });
}

/**
 * The receptions (e-CF, RFCE, ANECF) answer the scripted transport faults
 * the same way (5xx, unreachable, lost response, timeout); otherwise they
 * record the document and answer with `respond`.
 */
export async function receiveWithFaults<T>(
  sandbox: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: SandboxOutcome | undefined,
  receive: () => T,
  respond: (received: T) => unknown,
): Promise<FastifyReply> {
  switch (outcome?.kind) {
    case 'http5xx':
      return reply.code(outcome.status ?? 503).type('text/html; charset=utf-8').send(SERVICE_UNAVAILABLE);
    case 'unreachable':
      setUnreachable(sandbox.state, true, outcome.forMs);
      return drop(request, reply);
    case 'lostResponse':
      receive();
      return drop(request, reply);
    case 'timeout': {
      const received = outcome.received ? receive() : null;
      const stillThere = await hang(sandbox, request, outcome.ms ?? DEFAULT_HANG_MS);
      if (!stillThere) return drop(request, reply);
      if (received) return reply.send(respond(received));
      return reply.code(504).type('text/html; charset=utf-8').send(GATEWAY_TIMEOUT);
    }
    default:
      return reply.send(respond(receive()));
  }
}
