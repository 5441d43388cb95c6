import { EngineError, ValidationError } from '../../../src/engine/errors.js';

/** The engine error code a promise rejects with (`path:code` for a validation error), or 'no error'. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof EngineError) return e instanceof ValidationError ? `${e.errors[0]!.path}:${e.errors[0]!.code}` : e.code;
    throw e;
  }
  return 'no error';
}
