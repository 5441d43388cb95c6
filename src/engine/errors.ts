/**
 * Engine errors carry a stable code (e.g. `Tenant.NotFound`) and a kind that
 * says which class of failure it is. Adapters map the kind to a status (HTTP)
 * or an exit code (CLI); the code is what clients and tests match on.
 */
export type ErrorKind =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unavailable'
  /** Stored data that no longer reads back as it was stored (a damaged document): the operator's to repair. */
  | 'damaged';

export class EngineError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind, code: string, message: string) {
    super(message);
    this.name = 'EngineError';
    this.kind = kind;
    this.code = code;
  }
}

/** One problem with one field: the path (dots and [i]), a stable rule code and a sentence. */
export interface FieldError {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

export class ValidationError extends EngineError {
  readonly errors: readonly FieldError[];
  constructor(errors: readonly FieldError[], message = 'The request has invalid fields.') {
    super('validation', 'Validation.Failed', message);
    this.name = 'ValidationError';
    this.errors = errors;
  }
}

export const notFound = (what: string, code = `${what}.NotFound`): EngineError =>
  new EngineError('not_found', code, `${what} not found.`);

export const conflict = (code: string, message: string): EngineError =>
  new EngineError('conflict', code, message);

export const forbidden = (code: string, message: string): EngineError =>
  new EngineError('forbidden', code, message);

export const invalidField = (path: string, code: string, message: string): ValidationError =>
  new ValidationError([{ path, code, message }]);
