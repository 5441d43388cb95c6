import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Engine } from '../../engine/engine.js';
import { getEmitterProfile, replaceEmitterProfile } from '../../engine/tenants/emitter-profile.js';
import { EmitterProfileBody, EmitterProfileView } from '../../engine/tenants/schemas.js';
import { problems } from '../problem.js';

export default async function emitterProfileRoutes(base: FastifyInstance, { engine }: { engine: Engine }) {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1/emitter-profile',
    {
      config: { access: 'emitterProfile.get' },
      schema: {
        tags: ['Emitter profile'],
        summary: "The tenant's emitter profile (400 while the operator has not created it)",
        response: { 200: EmitterProfileView, ...problems(400, 401, 403) },
      },
    },
    async (request) => getEmitterProfile(engine, request.tenantId),
  );

  app.put(
    '/api/v1/emitter-profile',
    {
      config: { access: 'emitterProfile.update' },
      schema: {
        tags: ['Emitter profile'],
        summary: 'Replace every field of the existing profile; never creates one',
        body: EmitterProfileBody,
        response: { 200: EmitterProfileView, ...problems(400, 401, 403) },
      },
    },
    async (request) => replaceEmitterProfile(engine, request.tenantId, request.body),
  );
}
