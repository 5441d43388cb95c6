import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import type { EngineLog } from '../engine/log/index.js';

/**
 * The request an engine call runs for. The engine logs through one port made
 * before any request (`openEngine`), so its lines (a state change, a
 * contingency switch) cannot carry the request's id by themselves; the id
 * rides the async context instead, as @fastify/request-context does it:
 * entered in onRequest with run(), so the handler and every promise it
 * awaits (the commit hooks that log state changes included) see it.
 */
const current = new AsyncLocalStorage<{ readonly reqId: string }>();

export function registerRequestContext(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => current.run({ reqId: request.id }, done));
}

/** The engine's log with `reqId` added to each line written inside a request (the key fastify's own lines use). */
export function withRequestIds(log: EngineLog): EngineLog {
  const tagged = (fields: object): object => {
    const reqId = current.getStore()?.reqId;
    return reqId === undefined ? fields : { reqId, ...fields };
  };
  return {
    info: (fields, message) => log.info(tagged(fields), message),
    warn: (fields, message) => log.warn(tagged(fields), message),
    error: (fields, message) => log.error(tagged(fields), message),
    debug: (fields, message) => log.debug(tagged(fields), message),
  };
}
