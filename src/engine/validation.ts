import { FormatRegistry, type TSchema, type Static } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { DefaultErrorFunction, SetErrorFunction, ValueErrorType } from '@sinclair/typebox/errors';
import { ValidationError, type FieldError } from './errors.js';

/**
 * One validator for every input the engine accepts. HTTP uses it as fastify's
 * validator and the engine calls it on entry, so a rule lives in one schema
 * and reads the same wherever it is broken.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
FormatRegistry.Set('uuid', (v) => UUID.test(v));
FormatRegistry.Set('date', isCalendarDate);
FormatRegistry.Set('date-time', (v) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/.test(v) &&
  !Number.isNaN(Date.parse(v)),
);
FormatRegistry.Set('email', (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v));

/** Schemas may carry `errorMessage` to say the rule in words instead of a regex. */
SetErrorFunction((param) => {
  if (param.errorType === ValueErrorType.ObjectRequiredProperty) return 'is required';
  const custom = (param.schema as { errorMessage?: unknown }).errorMessage;
  return typeof custom === 'string' ? custom : DefaultErrorFunction(param);
});

export function isCalendarDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === v;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();
/** The schema's compiled checker, made once per schema object. */
export function compile<T extends TSchema>(schema: T): TypeCheck<T> {
  let c = compiled.get(schema);
  if (!c) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  return c as TypeCheck<T>;
}

/** "/lines/0/name" -> "lines[0].name" */
export function toFieldPath(pointer: string, prefix = ''): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = prefix;
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

/** Stable rule codes: the TypeBox error kind, e.g. `ObjectRequiredProperty`, `StringPattern`. */
function ruleCode(type: ValueErrorType): string {
  return ValueErrorType[type] ?? 'Invalid';
}

/**
 * Errors listed for one value at most; past it one more says the rest are not
 * listed. A 16 MiB body of a million wrong array items would otherwise take
 * minutes to walk and answer a gigabyte of errors.
 */
export const MAX_FIELD_ERRORS = 1000;

/** Every problem with `value` (up to MAX_FIELD_ERRORS), one per path and rule; the first message of a path wins on ties. */
export function fieldErrors(schema: TSchema, value: unknown, prefix = ''): FieldError[] {
  const checker = compile(schema);
  // The compiled check is fast; walking for errors is not, so walk only when there are some.
  if (checker.Check(value)) return [];
  const out: FieldError[] = [];
  // Path and message of every error kept: a body may bring a hundred thousand errors, so no scan of `out` per error.
  const seen = new Set<string>();
  const required = new Set<string>();
  for (const e of checker.Errors(value)) {
    if (out.length >= MAX_FIELD_ERRORS) {
      out.push({ path: prefix || '(body)', code: 'TooManyErrors', message: `has more problems than the ${MAX_FIELD_ERRORS} listed; correct these and send it again` });
      break;
    }
    const path = toFieldPath(e.path, prefix);
    const variant = e.type === ValueErrorType.Union ? soleCandidate(e.schema, e.value) : undefined;
    if (variant) {
      // "Expected union value" says nothing; a nullable field's errors are its non-null shape's.
      for (const inner of fieldErrors(variant, e.value, path)) out.push(inner);
      continue;
    }
    if (e.type === ValueErrorType.ObjectRequiredProperty) required.add(path);
    else if (required.has(path)) continue; // "missing" already says it; "expected string" adds nothing
    const seenKey = `${path}\u0000${e.message}`;
    if (seen.has(seenKey)) continue;
    seen.add(seenKey);
    out.push({ path: path || '(body)', code: ruleCode(e.type), message: e.message });
  }
  return out;
}

/** The one variant a non-null value can mean in a union without its own message (e.g. T | null). */
function soleCandidate(schema: TSchema, value: unknown): TSchema | undefined {
  if (value === undefined || (schema as { errorMessage?: unknown }).errorMessage !== undefined) return undefined;
  const variants = ((schema as { anyOf?: TSchema[] }).anyOf ?? []).filter(
    (v) => !(value !== null && (v as { type?: unknown }).type === 'null'),
  );
  return variants.length === 1 ? variants[0] : undefined;
}

/** Returns `value` typed by the schema, or throws a ValidationError listing every problem. */
export function check<T extends TSchema>(schema: T, value: unknown, prefix = ''): Static<T> {
  if (compile(schema).Check(value)) return value as Static<T>;
  throw new ValidationError(fieldErrors(schema, value, prefix));
}
