import type { FastifyServerOptions } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { stdSerializers, stdTimeFunctions } from 'pino';

/**
 * The server's logger: JSON lines (pino, as fastify uses) for journald and
 * log shippers, pretty lines for a person at a terminal. Nothing secret is
 * written: the headers that carry keys and cookies are censored by path, any
 * field named like a secret is censored wherever it sits (two levels deep),
 * query parameters named like one are masked in the URL, a password in a
 * connection URL is masked inside error messages, and request and response
 * bodies are never logged at all (fastify logs neither, and no serializer
 * here adds them).
 */

export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug'] as const;

export const CENSOR = '[redacted]';

/** Names of fields that hold a secret, wherever they are logged. */
export const SECRET_FIELDS = [
  'password',
  'passphrase',
  'p12Password',
  'certificatePassword',
  'secret',
  'webhookSecret',
  'signingSecret',
  'token',
  'accessToken',
  'refreshToken',
  'apiKey',
  'api_key',
  'privateKey',
  'authorization',
  'cookie',
  'x-api-key',
] as const;

const SECRET_HEADERS = ['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-ecf-passphrase'] as const;

const quoted = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `["${name}"]`);

/** pino `redact` paths: the secret headers of requests and responses, and secret-named fields at the top, one and two levels down. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_HEADERS.flatMap((h) => [`req.headers${quoted(h)}`, `res.headers${quoted(h)}`, `headers${quoted(h)}`]),
  ...SECRET_FIELDS.flatMap((f) => [f.includes('-') ? `["${f}"]` : f, `*${quoted(f)}`, `*.*${quoted(f)}`]),
];

const SECRET_QUERY = /([?&](?:[^=&#]*(?:key|token|secret|password|passphrase|signature)[^=&#]*)=)[^&#]*/gi;
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi;

/** A URL with the values of secret-named query parameters masked. */
export const maskUrl = (url: string | undefined): string | undefined => url?.replace(SECRET_QUERY, `$1${CENSOR}`);

/** A text with the password of any `scheme://user:password@` URL masked (a PostgreSQL URL in an error message). */
export const maskUrlPasswords = (text: string): string => text.replace(URL_PASSWORD, `$1${CENSOR}@`);

interface RequestLike {
  readonly id?: string;
  readonly method?: string;
  readonly url?: string;
  readonly ip?: string;
  readonly headers?: IncomingHttpHeaders;
  readonly routeOptions?: { readonly url?: string };
}

/**
 * What a request line shows: method, URL (secret query values masked), the
 * route, the caller's address, and the headers (the secret ones censored by
 * REDACT_PATHS; a copy, so the request itself keeps its headers).
 */
function requestSerializer(req: RequestLike) {
  return {
    method: req.method,
    url: maskUrl(req.url),
    ...(req.routeOptions?.url && { route: req.routeOptions.url }),
    remoteAddress: req.ip,
    ...(req.headers && { headers: { ...req.headers } }),
  };
}

/** The problem each reply answered with, kept for its response line (the reply is gone with its request). */
const problems = new WeakMap<object, { readonly code: string; readonly fields?: readonly string[] }>();
/** Field errors named on a response line, at most: the line stays short, the problem body has them all. */
const MAX_FIELDS_LOGGED = 10;

/**
 * Records the problem a reply answers with (a problem body, or the code and
 * field errors of a receiver's plain-text refusal), so its "request
 * completed" line says why: the code, and for a validation failure the
 * fields and rules (paths and codes only, never a value sent).
 */
export function noteProblem(reply: object, problem: { readonly code?: unknown; readonly fieldErrors?: unknown }): void {
  if (typeof problem.code !== 'string') return;
  const fieldErrors = Array.isArray(problem.fieldErrors) ? (problem.fieldErrors as { path?: unknown; code?: unknown }[]) : [];
  const fields = fieldErrors.slice(0, MAX_FIELDS_LOGGED).map((e) => `${String(e.path)} ${String(e.code)}`);
  problems.set(reply, { code: problem.code, ...(fields.length && { fields }) });
}

/** What a response line shows: the status code, and the problem when the answer was one. */
function responseSerializer(reply: { statusCode?: number }) {
  const problem = problems.get(reply);
  return { statusCode: reply.statusCode, ...(problem && { problem: problem.code }), ...(problem?.fields && { problemFields: problem.fields }) };
}

/** pino's own error serializer (type, message, stack, cause, own fields), with URL passwords masked. */
function errorSerializer(err: Error) {
  if (!(err instanceof Error)) return err;
  const out = stdSerializers.err(err);
  out.message = maskUrlPasswords(out.message);
  out.stack = maskUrlPasswords(out.stack);
  return out;
}

export interface ServerLoggerOptions {
  readonly level: string;
  /** Forced; absent, pretty when stdout is a terminal and JSON otherwise. */
  readonly format?: LogFormat;
  /** Where the lines go; stdout unless given (tests capture them). */
  readonly destination?: NodeJS.WritableStream;
}

/** The format in force: the flag's, else pretty on a terminal, else JSON. */
export const logFormatOf = (format: LogFormat | undefined, isTerminal = process.stdout.isTTY === true): LogFormat => format ?? (isTerminal ? 'pretty' : 'json');

/**
 * The `logger` option of buildApp (fastify's pino options). pino-pretty is
 * loaded only for the pretty format, so a server logging JSON never pays for it.
 */
export async function serverLoggerOptions(options: ServerLoggerOptions): Promise<Exclude<FastifyServerOptions['logger'], boolean | undefined>> {
  const format = logFormatOf(options.format);
  let stream = options.destination;
  if (format === 'pretty') {
    const { default: pretty } = await import('pino-pretty');
    stream = pretty({
      colorize: options.destination === undefined && process.stdout.isTTY === true,
      translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
      ignore: 'pid,hostname,req.headers',
      destination: options.destination ?? 1,
      sync: true,
    });
  }
  return {
    level: options.level,
    // Words and ISO times in the JSON, for people reading journald as much as for shippers.
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: stdTimeFunctions.isoTime,
    redact: { paths: [...REDACT_PATHS], censor: CENSOR },
    serializers: { req: requestSerializer, res: responseSerializer, err: errorSerializer, error: errorSerializer },
    ...(stream && { stream }),
  };
}
