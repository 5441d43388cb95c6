import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EmissionStateView, PauseBody, ResumeBody, emissionState, pauseOwnEmission, resumeOwnEmission } from '../../engine/limits/index.js';
import { problems } from '../problem.js';

/** The key that called, for `changedBy`; tenant operations only run with a tenant key. */
const keyId = (request: FastifyRequest): string => request.principal!.keyId;

/** The body is checked by the engine, so a missing body (resume) is an empty one and every field error comes back together. */
const engineChecks = () => (value: unknown) => ({ value });

export default async function emissionRoutes(base: FastifyInstance) {
  const { engine } = base;
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1/emission',
    {
      config: { access: 'emission.get' },
      schema: {
        tags: ['Emission'],
        summary: "Whether the tenant may issue new e-CF now: the pause in force (the tenant's own or its organization's), if any",
        response: { 200: EmissionStateView, ...problems(401, 403) },
      },
    },
    async (request) => emissionState(engine, request.tenantId),
  );

  app.post(
    '/api/v1/emission/pause',
    {
      config: { access: 'emission.pause' },
      validatorCompiler: engineChecks,
      schema: {
        tags: ['Emission'],
        summary:
          'Pause emission of new e-CF (POST /ecf answers 409 Ecf.EmissionPaused); stored e-CF, retries, validation and queries keep working. Pausing again changes reason and until; a pause set by the operator is 409 Emission.PausedByOperator',
        body: PauseBody,
        response: { 200: EmissionStateView, ...problems(400, 401, 403, 409) },
      },
    },
    async (request) => pauseOwnEmission(engine, request.tenantId, keyId(request), request.body ?? {}),
  );

  app.post(
    '/api/v1/emission/resume',
    {
      config: { access: 'emission.resume' },
      validatorCompiler: engineChecks,
      schema: {
        tags: ['Emission'],
        summary: "Lift the tenant's own pause (the body is optional). An organization's pause, or one set by the operator, stays: 409 Emission.PausedByOperator for the latter",
        body: ResumeBody,
        response: { 200: EmissionStateView, ...problems(400, 401, 403, 409) },
      },
    },
    async (request) => resumeOwnEmission(engine, request.tenantId, keyId(request), request.body ?? {}),
  );
}
