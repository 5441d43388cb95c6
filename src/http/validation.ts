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
    const value = httpPart === 'body' ? data : Value.Convert(schema, data);
    const errors = fieldErrors(schema, value);
    if (errors.length === 0) return { value };
    return {
      error: new ValidationError(
        errors.map((e) => ({ ...e, path: e.path === '(body)' ? e.path : prefix + e.path })),
      ),
    };
  };
};
