import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Uuid } from '../../engine/schema-types.js';
import {
  CreatedWebhook,
  createWebhook,
  CreateWebhookBody,
  deleteWebhook,
  DeliveriesQuery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  PagedDeliveries,
  PingResult,
  pingWebhook,
  retryDelivery,
  rotateWebhookSecret,
  SecretResult,
  updateWebhook,
  UpdateWebhookBody,
  WebhookEndpointView,
} from '../../engine/webhooks/index.js';
import { problems } from '../problem.js';

const IdParams = Type.Object({ id: Uuid() });
const DeliveryParams = Type.Object({ id: Uuid(), deliveryId: Uuid() });
const NoContent = Type.Null({ description: 'No content' });
/** The engine checks these bodies, so shape errors and the webhook rules come back together in one 400. */
const engineValidates = () => (value: unknown) => ({ value });

export default async function webhookRoutes(base: FastifyInstance) {
  const { engine } = base;
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Webhooks'];

  app.post(
    '/api/v1/webhooks',
    {
      config: { access: 'webhooks.create' },
      validatorCompiler: engineValidates,
      schema: {
        tags,
        summary: 'Subscribe an endpoint; the answer carries its secret, shown only now',
        body: CreateWebhookBody,
        response: { 201: CreatedWebhook, ...problems(400, 401, 403) },
      },
    },
    async (request, reply) => reply.status(201).send(await createWebhook(engine, request.tenantId, request.body)),
  );

  app.get(
    '/api/v1/webhooks',
    {
      config: { access: 'webhooks.list' },
      schema: { tags, summary: "The tenant's endpoints, oldest first", response: { 200: Type.Array(WebhookEndpointView), ...problems(401, 403) } },
    },
    async (request) => listWebhooks(engine, request.tenantId),
  );

  app.get(
    '/api/v1/webhooks/:id',
    {
      config: { access: 'webhooks.get' },
      schema: { tags, summary: 'One endpoint', params: IdParams, response: { 200: WebhookEndpointView, ...problems(400, 401, 403, 404) } },
    },
    async (request) => getWebhook(engine, request.tenantId, request.params.id),
  );

  app.patch(
    '/api/v1/webhooks/:id',
    {
      config: { access: 'webhooks.update' },
      validatorCompiler: engineValidates,
      schema: {
        tags,
        summary: 'Change url, events, description or enabled; answers the endpoint view. enabled:true re-enables and resets consecutiveFailures',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookEndpointView, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => updateWebhook(engine, request.tenantId, request.params.id, request.body),
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      config: { access: 'webhooks.delete' },
      schema: { tags, summary: 'Remove the endpoint and its delivery log; nothing more is sent', params: IdParams, response: { 204: NoContent, ...problems(400, 401, 403, 404) } },
    },
    async (request, reply) => {
      await deleteWebhook(engine, request.tenantId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/webhooks/:id/rotate-secret',
    {
      config: { access: 'webhooks.rotateSecret' },
      schema: {
        tags,
        summary: 'A new secret, shown only now; the previous one stops working at once',
        params: IdParams,
        response: { 200: SecretResult, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => rotateWebhookSecret(engine, request.tenantId, request.params.id),
  );

  app.post(
    '/api/v1/webhooks/:id/ping',
    {
      config: { access: 'webhooks.ping' },
      schema: {
        tags,
        summary: 'Send a signed webhook.ping now, outside the retry queue, and answer what happened',
        params: IdParams,
        response: { 200: PingResult, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => pingWebhook(engine, request.tenantId, request.params.id),
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      config: { access: 'webhooks.deliveries' },
      schema: {
        tags,
        summary: "The endpoint's delivery log (30 days), newest first, paged",
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: PagedDeliveries, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => listDeliveries(engine, request.tenantId, request.params.id, request.query),
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:deliveryId/retry',
    {
      config: { access: 'webhooks.retryDelivery' },
      schema: {
        tags,
        summary: 'A dead delivery back to pending, due now, attempts reset; 404 for any delivery that is not dead',
        params: DeliveryParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await retryDelivery(engine, request.tenantId, request.params.id, request.params.deliveryId);
      return reply.status(204).send(null);
    },
  );
}
