import { Value } from '@sinclair/typebox/value';

/** The first ten ways `value` misses `schema`, each naming its field, for a 400 answer or a thrown error. */
export function schemaErrors(schema: Parameters<typeof Value.Errors>[0], value: unknown): string[] {
  return [...Value.Errors(schema, value)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
}
