import { EngineError } from '../errors.js';

/** SQLite result codes that mean "the store cannot serve now", not "the request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|PROTOCOL)/;

/**
 * The same on PostgreSQL (SQLSTATE): the connection failed (08), the server
 * is short of resources (53) or shutting down (57P), a lock wait passed
 * lock_timeout (55P03), a serialization failure or deadlock (40001, 40P01),
 * a system error (58). The client's own socket errors say the server is unreachable.
 */
const PG_UNAVAILABLE = /^(08|53|57P|58)|^55P03$|^40001$|^40P01$/;
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

/** Turns a store failure of that kind into a 503-class engine error; anything else passes through. */
export function storeUnavailable(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNAVAILABLE.test(code) || PG_UNAVAILABLE.test(code) || SOCKET_ERRORS.has(code))) {
    return new EngineError('unavailable', 'Store.Unavailable', 'The data store is busy or unavailable; retry with the same Idempotency-Key.');
  }
  return error;
}
