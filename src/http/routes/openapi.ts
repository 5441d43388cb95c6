import type { FastifyInstance } from 'fastify';

export default async function openapiRoutes(app: FastifyInstance) {
  app.get(
    '/api/v1/openapi.json',
    { config: { access: 'public' }, schema: { hide: true, security: [] } },
    async () => app.swagger(),
  );
}
