// The door of engine/webhooks: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice and the bundle drops what a command does not use.
export { getDelivery, listDeliveries, pingWebhook, purgeDeliveries, retryDelivery } from './delivery.js';
export { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './endpoints.js';
export {
  CreateWebhookBody,
  CreatedWebhook,
  DeliveriesQuery,
  PagedDeliveries,
  PingResult,
  SecretResult,
  UpdateWebhookBody,
  WebhookEndpointView,
  type WebhookDeliveryView,
} from './schemas.js';
