import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaCompiler } from 'fastify';
import { ValidationError } from '../engine/errors.js';
import { fieldErrors } from '../engine/validation.js';

/**
 * fastify validates with the engine's validator, so an HTTP 400 lists the
 * same paths, codes and messages the engine and the CLI give. Query strings
 * and path params arrive as text and are converted to the schema's types.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const prefix = httpPart === 'querystring' ? 'query.' : httpPart === 'params' ? 'path.' : httpPart === 'headers' ? 'header.' : '';
  return (data: unknown) => {
    const value = httpPart === 'body' ? data : fromText(schema, data);
    const errors = fieldErrors(schema, value);
    if (errors.length === 0) return { value };
    return {
      error: new ValidationError(
        errors.map((e) => ({ ...e, path: e.path === '(body)' ? e.path : prefix + e.path })),
      ),
    };
  };
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Query, path and header values converted to the schema's types. TypeBox
 * reads "1.5", "true" and "1abc" as the integer 1; a text becomes a number
 * only when the number writes back as that very text, so anything else is
 * checked as the text it is and refused by name.
 */
function fromText(schema: TSchema, data: unknown): unknown {
  // Convert changes the object it is given: the texts are kept aside first.
  const texts = isRecord(data) ? new Map(Object.entries(data)) : null;
  const converted = Value.Convert(schema, data);
  if (!texts || !isRecord(converted)) return converted;
  for (const key of Object.keys(converted)) {
    const text = texts.get(key);
    if (typeof text === 'string' && typeof converted[key] === 'number' && String(converted[key]) !== text) converted[key] = text;
  }
  return converted;
}
