import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The id of the API request an engine call runs for. The engine logs through
 * one port made before any request, so its lines cannot carry the id by
 * themselves; the id rides the async context instead (the HTTP adapter enters
 * it for each request), and work a request queues keeps it in its payload, so
 * the later state changes of the e-CF a request made carry it too.
 */
const current = new AsyncLocalStorage<string>();

/** Runs `fn` (and every promise it awaits) as part of request `reqId`. */
export const runInRequest = <T>(reqId: string, fn: () => T): T => current.run(reqId, fn);

/** The request this call runs for; undefined outside one (the CLI, the jobs, the folder drop). */
export const currentRequestId = (): string | undefined => current.getStore();
