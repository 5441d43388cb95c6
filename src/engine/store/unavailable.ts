import { EngineError } from '../errors.js';

/** SQLite result codes that mean "the store cannot serve now", not "the request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|PROTOCOL)/;

/** Turns a store failure of that kind into a 503-class engine error; anything else passes through. */
export function storeUnavailable(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNAVAILABLE.test(code)) {
    return new EngineError('unavailable', 'Store.Unavailable', 'The data store is busy or unavailable; retry with the same Idempotency-Key.');
  }
  return error;
}
