import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EngineError } from '../engine/errors.js';

/**
 * Every JSON request body of the app is read here. Two refusals come before
 * any handler sees the value:
 * - nesting deeper than MAX_JSON_DEPTH: the deepest real payload (an e-CF
 *   line's additional taxes) is 4 levels, and code that walks a value
 *   recursively must never meet one deep enough to exhaust the stack;
 * - a `__proto__` key, or `constructor.prototype`: the same refusal fastify's
 *   own parser makes, here with a problem that says why.
 */
export const MAX_JSON_DEPTH = 64;

const invalid = (code: string, message: string) => new EngineError('validation', code, message);

/**
 * The deepest nesting of arrays and objects in JSON text, counted without
 * parsing (and so without building the deep value), stopping past `limit`.
 * Strings are skipped: a bracket inside one is text.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** "__proto__" or "constructor", possibly written with \u escapes, as a key: only then is the parsed value walked. */
const SUSPECT_KEY = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:|"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

/** The first key that would reach an object's prototype, if any; walked with a stack, not recursion. */
function prototypeKey(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    const record = node as Record<string, unknown>;
    if (Object.hasOwn(record, '__proto__')) return '__proto__';
    const ctor = Object.hasOwn(record, 'constructor') ? record['constructor'] : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return 'constructor.prototype';
    for (const key of Object.keys(record)) pending.push(record[key]);
  }
  return undefined;
}

/** Parses a JSON body, or throws the 400 that says what is wrong with it. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw invalid('Http.CTP_EMPTY_JSON_BODY', "Body cannot be empty when content-type is set to 'application/json'");
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw invalid('Http.BodyTooDeep', `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; at most ${MAX_JSON_DEPTH} are accepted.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalid('Http.CTP_INVALID_JSON_BODY', `Body is not valid JSON but content-type is set to 'application/json': ${(e as Error).message}`);
  }
  const key = SUSPECT_KEY.test(text) ? prototypeKey(value) : undefined;
  if (key) throw invalid('Http.ForbiddenPropertyName', `The JSON body has a property named ${key}, which is never accepted.`);
  return value;
}

/** Replaces fastify's JSON parser for the whole app (each route's body limit still applies). */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    try {
      done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}
