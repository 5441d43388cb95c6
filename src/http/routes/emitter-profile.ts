import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EmitterProfilePutBody, EmitterProfileView, getEmitterProfile, replaceEmitterProfile } from '../../engine/tenants/index.js';
import { problems } from '../problem.js';

export default async function emitterProfileRoutes(base: FastifyInstance) {
  const { engine } = base;
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
      // The engine checks the body against the stored profile, so shape and read-only errors come back together in one 400.
      validatorCompiler: () => (value: unknown) => ({ value }),
      schema: {
        tags: ['Emitter profile'],
        summary:
          'Replace every field of the existing profile; never creates one. The body may be the profile GET answers: its read-only fields (id, tenantId, defaultEnvironment, createdAt, updatedAt) are ignored when unchanged and refused when changed',
        body: EmitterProfilePutBody,
        response: { 200: EmitterProfileView, ...problems(400, 401, 403) },
      },
    },
    async (request) => replaceEmitterProfile(engine, request.tenantId, request.body),
  );
}
