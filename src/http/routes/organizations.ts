import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createTenant, CreateTenantBody, TenantView } from '../../engine/tenants/index.js';
import { Uuid } from '../../engine/schema-types.js';
import { problems } from '../problem.js';

export default async function organizationRoutes(base: FastifyInstance) {
  const { engine } = base;
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1/organizations/:id/tenants',
    {
      config: { access: { organizationParam: 'id' } },
      schema: {
        tags: ['Tenants'],
        summary: "Create a tenant in the organization (owner or admin key of that organization), within the plan's tenant cap",
        params: Type.Object({ id: Uuid() }),
        body: CreateTenantBody,
        response: { 201: TenantView, ...problems(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const tenant = await createTenant(engine, { ...request.body, organizationId: request.params.id });
      return reply.status(201).send(tenant);
    },
  );
}
