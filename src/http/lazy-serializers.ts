import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * fastify's own response serializers (fast-json-stringify), each compiled on
 * its route's first response instead of all at start-up: compiling the ~100
 * response schemas was a third of `ecf serve`'s start, and most runs use a
 * handful of routes. The compiled function and its output are fastify's own.
 */
export function lazySerializers(): NonNullable<CompilersFactory['buildSerializer']> {
  const eager = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = eager(externalSchemas as never, options as never);
    return (route: Parameters<typeof compile>[0]) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => (serialize ??= compile(route) as (data: unknown) => string)(data);
    };
  };
}
