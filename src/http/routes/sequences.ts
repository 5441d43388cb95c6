import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { allocate, AllocateBody, AllocatedSequence, AnnulBody, AnnulmentView, listRanges, SequenceRangeView } from '../../engine/sequences/index.js';
import { annulSequences, getAnnulment, listAnnulments, retryAnnulment } from '../../engine/sequences/annulling.js';
import { Uuid } from '../../engine/schema-types.js';
import { problems } from '../problem.js';

const IdParams = Type.Object({ id: Uuid() });

export default async function sequenceRoutes(base: FastifyInstance) {
  const { engine } = base;
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

  app.post(
    '/api/v1/sequences/annulments',
    {
      config: { access: 'sequences.annulments' },
      schema: {
        tags: ['Sequences'],
        summary:
          'Annul never-used e-NCF (ANECF): the numbers are discarded at once, the signed ANECF is sent in the same request; the record says voided, rejected or failed',
        body: AnnulBody,
        response: { 200: AnnulmentView, ...problems(400, 401, 403, 409) },
      },
    },
    async (request) => annulSequences(engine, request.tenantId, request.body),
  );

  app.get(
    '/api/v1/sequences/annulments',
    {
      config: { access: 'sequences.annulments' },
      schema: {
        tags: ['Sequences'],
        summary: "The tenant's annulments, newest first",
        response: { 200: Type.Array(AnnulmentView), ...problems(401, 403) },
      },
    },
    async (request) => listAnnulments(engine, request.tenantId),
  );

  app.get(
    '/api/v1/sequences/annulments/:id',
    {
      config: { access: 'sequences.annulments' },
      schema: {
        tags: ['Sequences'],
        summary: 'One annulment',
        params: IdParams,
        response: { 200: AnnulmentView, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => getAnnulment(engine, request.tenantId, request.params.id),
  );

  app.post(
    '/api/v1/sequences/annulments/:id/retry',
    {
      config: { access: 'sequences.annulments' },
      schema: {
        tags: ['Sequences'],
        summary: 'Send the same signed ANECF again (failed or rejected); 409 when voided or while a send is in flight',
        params: IdParams,
        response: { 200: AnnulmentView, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => retryAnnulment(engine, request.tenantId, request.params.id),
  );
}
