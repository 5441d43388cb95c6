import { Type, type TSchema } from '@sinclair/typebox';
import { EngineError, ValidationError, type ErrorKind } from '../engine/errors.js';
import { storeUnavailable } from '../engine/store/index.js';

/**
 * RFC 9457 bodies. `code` is the stable engine code clients match on;
 * `requestId` ties a response to the server log.
 */
export const ProblemDetails = Type.Object(
  {
    type: Type.Union([Type.String(), Type.Null()]),
    title: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Integer(), Type.Null()]),
    detail: Type.Union([Type.String(), Type.Null()]),
    instance: Type.Union([Type.String(), Type.Null()]),
    code: Type.String(),
    requestId: Type.String(),
  },
  { $id: 'ProblemDetails', additionalProperties: true },
);

export const ValidationProblemDetails = Type.Composite(
  [
    Type.Omit(ProblemDetails, []),
    Type.Object({
      errors: Type.Record(Type.String(), Type.Array(Type.String()), {
        description: 'Field path to every message about it',
      }),
      fieldErrors: Type.Array(
        Type.Object({ path: Type.String(), code: Type.String(), message: Type.String() }),
        { description: 'The same problems with a stable rule code each' },
      ),
    }),
  ],
  { $id: 'ValidationProblemDetails' },
);

const STATUS: Record<ErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unavailable: 503,
  damaged: 500,
};

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  500: 'Internal server error',
  503: 'Service unavailable',
};

export interface Problem {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

const problemType = (code: string) => `urn:ecf:problem:${code}`;

export function problemFor(raised: unknown, instance: string, requestId: string): Problem {
  const error = storeUnavailable(raised);
  if (error instanceof ValidationError) {
    // Paths come from the client's own keys: a plain {} would find "constructor" or "toString" inherited.
    const errors: Record<string, string[]> = Object.create(null);
    for (const e of error.errors) (errors[e.path] ??= []).push(e.message);
    return {
      status: 400,
      body: {
        type: problemType(error.code),
        title: 'One or more fields are invalid.',
        status: 400,
        detail: error.errors.map((e) => `${e.path}: ${e.message}`).join('; '),
        instance,
        code: error.code,
        requestId,
        errors,
        fieldErrors: error.errors,
      },
    };
  }
  if (error instanceof EngineError) {
    const status = STATUS[error.kind];
    return { status, body: body(status, error.code, error.message, instance, requestId) };
  }
  // fastify's own client errors (bad JSON, body too large, wrong content type) keep their status.
  const fe = error as { statusCode?: number; code?: string; message?: string };
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code = `Http.${(fe.code ?? 'ClientError').replace(/^FST_ERR_/, '')}`;
    return { status: fe.statusCode, body: body(fe.statusCode, code, fe.message ?? 'Bad request.', instance, requestId) };
  }
  return {
    status: 500,
    body: body(500, 'Internal', 'An unexpected error occurred. Quote the request id to the operator.', instance, requestId),
  };
}

function body(status: number, code: string, detail: string, instance: string, requestId: string) {
  return { type: problemType(code), title: TITLES[status] ?? 'Error', status, detail, instance, code, requestId };
}

/** Response schemas for the given problem statuses, for a route's `response` block. */
export function problems(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((s) => [s, s === 400 ? Type.Union([ValidationProblemDetails, ProblemDetails]) : ProblemDetails]),
  );
}
