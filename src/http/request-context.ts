import type { FastifyInstance } from 'fastify';
import { currentRequestId, runInRequest, type EngineLog } from '../engine/log/index.js';

/**
 * Every request runs inside its id's async context (engine/log/request-id.ts),
 * entered in onRequest with run() as @fastify/request-context does it, so the
 * handler and every promise it awaits (the commit hooks that log state
 * changes included) see it.
 */
export function registerRequestContext(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => runInRequest(request.id, done));
}

/** The engine's log with `reqId` added to each line written inside a request (the key fastify's own lines use). */
export function withRequestIds(log: EngineLog): EngineLog {
  const tagged = (fields: object): object => {
    const reqId = currentRequestId();
    return reqId === undefined || 'reqId' in fields ? fields : { reqId, ...fields };
  };
  return {
    info: (fields, message) => log.info(tagged(fields), message),
    warn: (fields, message) => log.warn(tagged(fields), message),
    error: (fields, message) => log.error(tagged(fields), message),
    debug: (fields, message) => log.debug(tagged(fields), message),
  };
}
