import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EnvironmentSchema, Uuid } from '../../engine/schema-types.js';
import { EcfView } from '../../engine/ecf/index.js';
import { AttemptView, EcfSending, getEcfSending, listAttempts } from '../../engine/submission/index.js';
import { retryEcf } from '../../engine/submission/retrying.js';
import { checkConnection } from '../../engine/taxauth/index.js';
import { problems } from '../problem.js';

const IdParams = Type.Object({ id: Uuid() });

const ConnectionView = Type.Object({
  environment: EnvironmentSchema,
  ok: Type.Boolean(),
  authenticated: Type.Boolean(),
  elapsedMs: Type.Number(),
  tokenExpiresAt: Type.Union([Type.String(), Type.Null()], { description: 'When the cached token expires; the token itself is never returned' }),
  error: Type.Union([Type.Object({ kind: Type.String(), status: Type.Union([Type.Integer(), Type.Null()]), message: Type.String() }), Type.Null()]),
  authorityStatus: Type.Object(
    {
      configured: Type.Boolean(),
      checkedAt: Type.Union([Type.String(), Type.Null()]),
      status: Type.Union([Type.String(), Type.Null()], { description: 'The status host\'s word for the environment, e.g. Disponible' }),
      available: Type.Union([Type.Boolean(), Type.Null()]),
      servicesDown: Type.Array(Type.String()),
      inMaintenance: Type.Boolean(),
      nextWindow: Type.Union([Type.Object({ startsAt: Type.String(), endsAt: Type.String() }), Type.Null()]),
      error: Type.Union([Type.String(), Type.Null()]),
      summary: Type.String(),
    },
    { description: 'The authority\'s status services (with an API key set: ecf taxauth status-key set), read at most every few minutes' },
  ),
});

export default async function submissionRoutes(base: FastifyInstance) {
  const { engine } = base;
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v1/ecf/:id/attempts',
    {
      config: { access: 'ecf.attempts' },
      schema: {
        tags: ['e-CF'],
        summary: 'Every submission cycle of the e-CF, oldest first, including those before a resend',
        params: IdParams,
        response: { 200: Type.Array(AttemptView), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => listAttempts(engine, request.tenantId, request.params.id),
  );

  app.get(
    '/api/v1/ecf/:id/sending',
    {
      config: { access: 'ecf.sending' },
      schema: {
        tags: ['e-CF'],
        summary: "Where the e-CF's sending stands: the next call to the authority and when, the failures and busy answers in a row, the last error (an extension of the contract: docs/submission.md)",
        params: IdParams,
        response: { 200: EcfSending, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => getEcfSending(engine, request.tenantId, request.params.id),
  );

  app.post(
    '/api/v1/ecf/:id/retry',
    {
      config: { access: 'ecf.retry' },
      schema: {
        tags: ['e-CF'],
        summary: 'Send the same signed XML again (failed, review, or rejected without a consumed e-NCF): 202 with the e-CF back in signed',
        params: IdParams,
        response: { 202: EcfView, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.status(202).send(await retryEcf(engine, request.tenantId, request.params.id)),
  );

  app.get(
    '/api/v1/taxauth/connection',
    {
      config: { access: 'taxauth.connection' },
      schema: {
        tags: ['Tax authority'],
        summary: 'Authenticate with the tax authority (seed, signature, token) and report how it went; never returns the token',
        querystring: Type.Object({ environment: Type.Optional(EnvironmentSchema) }),
        response: { 200: ConnectionView, ...problems(400, 401, 403) },
      },
    },
    async (request) => checkConnection(engine, request.tenantId, request.query.environment),
  );
}
