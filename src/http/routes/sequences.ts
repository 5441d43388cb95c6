import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../../engine/engine.js';
import { allocate, listRanges } from '../../engine/sequences/ranges.js';
import { AllocateBody, AllocatedSequence, SequenceRangeView } from '../../engine/sequences/schemas.js';
import { problems } from '../problem.js';

export default async function sequenceRoutes(base: FastifyInstance, { engine }: { engine: Engine }) {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1/sequences',
    {
      config: { access: 'sequences.list' },
      schema: {
        tags: ['Sequences'],
        summary: 'Authorized e-NCF ranges with their capacity, remaining numbers and low-stock flag',
        response: { 200: Type.Array(SequenceRangeView), ...problems(401, 403) },
      },
    },
    async (request) => listRanges(engine, request.tenantId),
  );

  app.post(
    '/api/v1/sequences/allocate',
    {
      config: { access: 'sequences.allocate' },
      schema: {
        tags: ['Sequences'],
        summary: 'Take the next e-NCF of a type (advances the range); 409 when no active unexpired range has numbers left',
        body: AllocateBody,
        response: { 200: AllocatedSequence, ...problems(400, 401, 403, 409) },
      },
    },
    async (request) => allocate(engine, request.tenantId, request.body),
  );
}
